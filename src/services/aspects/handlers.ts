/**
 * The rules a write of an aspect follows: its module's (domain/aspects/), for the
 * entity type written. The write path (pipeline.ts) is the same for every aspect.
 */
import { rulesOf } from '../../domain/aspects/index.js';
import type { EntityTypeInfo } from '../../domain/registry/entityTypes.js';
import type { AspectRules } from '../../domain/writes/aspectRules.js';

export function handlerFor(entityType: EntityTypeInfo, aspect: string): AspectRules {
  return rulesOf(entityType, aspect);
}
