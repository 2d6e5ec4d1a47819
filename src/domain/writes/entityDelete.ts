/**
 * Deletes as data (docs/contract.md §5): what a hard delete of an entity, or of one of its aspects,
 * removes beside the rows themselves. A dataset's schema fields go with it; what else
 * goes is each aspect's own fact (its rules' `deleted`, domain/aspects/modules/): an
 * entity's value rows go with its structuredProperties aspect, a property's definition
 * takes its registry row and a job then removes its values everywhere, deleting a
 * property's status restores it.
 */
import { findEntityType } from '../registry/entityTypes.js';
import type { AspectDeletion, DeletionEffects } from './aspectRules.js';
import type { JobRequest, LifecycleNote } from './writeDecision.js';

/** An entity a delete found (locked), with the aspects it has. */
export interface EntityToDelete {
  readonly urn: string;
  readonly entityType: string;
  readonly aspects: readonly string[];
}

export interface DeleteDecision {
  /** Entities removed with all their aspects and value rows. */
  readonly entities: ReadonlyArray<{ readonly urn: string; readonly entityType: string }>;
  /** Aspects removed (every version) from entities that stay. */
  readonly aspects: ReadonlyArray<{ readonly urn: string; readonly entityType: string; readonly aspect: string }>;
  /** Entities (that stay) whose value rows are removed. */
  readonly valueRowsOf: readonly string[];
  readonly registry: ReadonlyArray<{ readonly urn: string; readonly change: 'delete' | 'restore' }>;
  readonly jobs: readonly JobRequest[];
  /** Lifecycle events of the definitions (properties, metadata tests) it removes or restores. */
  readonly events: ReadonlyArray<{ readonly urn: string; readonly entityType: string; readonly note: LifecycleNote }>;
}

export const NOTHING_TO_DELETE: DeleteDecision = { entities: [], aspects: [], valueRowsOf: [], registry: [], jobs: [], events: [] };

/** Whether an entity type's lifecycle is kept in history: definitions (properties, metadata tests). */
function hasLifecycle(entityType: string): boolean {
  return findEntityType(entityType)?.definitionAspect !== undefined;
}

/** The deletion facts of an aspect of an entity type, by their names (undefined: nothing beyond its rows). */
export type DeletionOf = (entityType: string, aspect: string) => AspectDeletion | undefined;

function registryOf(urn: string, effects: DeletionEffects): DeleteDecision['registry'] {
  return effects.registry ? [{ urn, change: effects.registry }] : [];
}

/** Deletes the entities found: an entity and its children, such as a dataset's schema fields (children first). */
export function decideEntityDelete(found: readonly EntityToDelete[], deletionOf: DeletionOf): DeleteDecision {
  const effects = found.flatMap((e) => e.aspects.flatMap((a) => {
    const of = deletionOf(e.entityType, a)?.withEntity;
    return of ? [{ urn: e.urn, effects: of(e.urn) }] : [];
  }));
  return {
    entities: found.map((e) => ({ urn: e.urn, entityType: e.entityType })),
    aspects: [],
    valueRowsOf: [],
    registry: effects.flatMap((x) => registryOf(x.urn, x.effects)),
    jobs: effects.flatMap((x) => x.effects.jobs ?? []),
    events: found.filter((e) => hasLifecycle(e.entityType)).map((e) => ({ urn: e.urn, entityType: e.entityType, note: { event: 'hardDeleted' } })),
  };
}

/** Deletes one aspect of an entity that stays (the key aspect is the entity: see decideEntityDelete). */
export function decideAspectDelete(entity: EntityToDelete, aspect: string, deletionOf: DeletionOf): DeleteDecision {
  if (!entity.aspects.includes(aspect)) return NOTHING_TO_DELETE;
  const effects = deletionOf(entity.entityType, aspect)?.ofAspect?.(entity.urn) ?? {};
  return {
    entities: [],
    aspects: [{ urn: entity.urn, entityType: entity.entityType, aspect }],
    valueRowsOf: effects.valueRows ? [entity.urn] : [],
    registry: registryOf(entity.urn, effects),
    jobs: effects.jobs ?? [],
    events: effects.event ? [{ urn: entity.urn, entityType: entity.entityType, note: { event: effects.event } }] : [],
  };
}
