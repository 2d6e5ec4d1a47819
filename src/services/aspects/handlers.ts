/**
 * The one table of aspect rules: which rules (domain/writes/) govern an aspect of an
 * entity type. A handler declares the state a write relies on and decides, purely;
 * the write path (pipeline.ts) is the same for every aspect.
 */
import type { EntityTypeInfo } from '../../domain/entityTypes.js';
import { ValidationError } from '../../domain/errors.js';
import type { AspectRules } from '../../domain/writes/aspectRules.js';
import { keyAspectRules, objectAspectRules, testInfoRules, testResultsRules } from '../../domain/writes/plainAspectRules.js';
import { propertyDefinitionRules } from '../../domain/writes/propertyDefinitionRules.js';
import { propertyStatusRules, statusRules } from '../../domain/writes/statusRules.js';
import { structuredPropertiesRules } from '../../domain/writes/structuredPropertiesRules.js';

export function isKnownAspect(entityType: EntityTypeInfo, aspect: string): boolean {
  return aspect === entityType.keyAspect || entityType.aspects.includes(aspect);
}

export function handlerFor(entityType: EntityTypeInfo, aspect: string): AspectRules {
  if (!isKnownAspect(entityType, aspect)) {
    throw new ValidationError(
      `Unknown aspect ${aspect} for entity type ${entityType.name}; known aspects: ${[entityType.keyAspect, ...entityType.aspects].join(', ')}`,
      'aspect',
    );
  }
  if (aspect === entityType.keyAspect) return keyAspectRules(aspect);
  if (aspect === 'structuredProperties') return structuredPropertiesRules;
  if (entityType.name === 'structuredProperty') {
    if (aspect === 'propertyDefinition') return propertyDefinitionRules;
    if (aspect === 'status') return propertyStatusRules;
  }
  if (entityType.name === 'test' && aspect === 'testInfo') return testInfoRules;
  if (aspect === 'testResults') return testResultsRules;
  if (aspect === 'status') return statusRules;
  return objectAspectRules(aspect);
}
