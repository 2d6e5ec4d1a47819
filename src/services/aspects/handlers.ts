/** Chooses the handler for an aspect of an entity type: the one table of aspect rules. */
import type { EntityTypeInfo } from '../../domain/entityTypes.js';
import { ValidationError } from '../../domain/errors.js';
import { genericAspectHandler } from './genericAspect.js';
import type { AspectHandler } from './handler.js';
import { keyAspectHandler } from './keyAspect.js';
import { propertyDefinitionHandler } from './propertyDefinitionAspect.js';
import { propertyStatusHandler, statusHandler } from './statusAspect.js';
import { structuredPropertiesHandler } from './structuredPropertiesAspect.js';
import { testInfoHandler } from './testInfoAspect.js';
import { testResultsHandler } from './testResultsAspect.js';

export function isKnownAspect(entityType: EntityTypeInfo, aspect: string): boolean {
  return aspect === entityType.keyAspect || entityType.aspects.includes(aspect);
}

export function handlerFor(entityType: EntityTypeInfo, aspect: string): AspectHandler {
  if (!isKnownAspect(entityType, aspect)) {
    throw new ValidationError(
      `Unknown aspect ${aspect} for entity type ${entityType.name}; known aspects: ${[entityType.keyAspect, ...entityType.aspects].join(', ')}`,
      'aspect',
    );
  }
  if (aspect === entityType.keyAspect) return keyAspectHandler(aspect);
  if (aspect === 'structuredProperties') return structuredPropertiesHandler;
  if (entityType.name === 'structuredProperty') {
    if (aspect === 'propertyDefinition') return propertyDefinitionHandler;
    if (aspect === 'status') return propertyStatusHandler;
  }
  if (entityType.name === 'test' && aspect === 'testInfo') return testInfoHandler;
  if (aspect === 'testResults') return testResultsHandler;
  if (aspect === 'status') return statusHandler;
  return genericAspectHandler(aspect);
}
