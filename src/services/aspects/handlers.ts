/**
 * The rules (domain/writes/) of each kind the registry names: a handler declares the
 * state a write relies on and decides, purely; the write path (pipeline.ts) is the same
 * for every aspect. Which kind governs an aspect of an entity type is the registry's
 * fact (domain/registry/); this module only maps kinds to their rules.
 */
import { requireKnownAspect, ruleKindOf, type EntityTypeInfo } from '../../domain/registry/entityTypes.js';
import type { RuleKind } from '../../domain/registry/aspects.js';
import type { AspectRules } from '../../domain/writes/aspectRules.js';
import { keyAspectRules, objectAspectRules, testInfoRules, testResultsRules } from '../../domain/writes/plainAspectRules.js';
import { policyInfoRules } from '../../domain/writes/policyInfoRules.js';
import { propertyDefinitionRules } from '../../domain/writes/propertyDefinitionRules.js';
import { propertyStatusRules, statusRules } from '../../domain/writes/statusRules.js';
import { structuredPropertiesRules } from '../../domain/writes/structuredPropertiesRules.js';

const RULES: Readonly<Record<Exclude<RuleKind, 'object'>, AspectRules>> = {
  structuredProperties: structuredPropertiesRules,
  propertyDefinition: propertyDefinitionRules,
  propertyStatus: propertyStatusRules,
  status: statusRules,
  testInfo: testInfoRules,
  testResults: testResultsRules,
  policyInfo: policyInfoRules,
};

export function handlerFor(entityType: EntityTypeInfo, aspect: string): AspectRules {
  requireKnownAspect(entityType, aspect);
  const kind = ruleKindOf(entityType, aspect);
  if (kind === 'key') return keyAspectRules(aspect);
  return kind === 'object' ? objectAspectRules(aspect) : RULES[kind];
}
