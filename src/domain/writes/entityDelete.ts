/**
 * Deletes as data (docs/contract.md §5): what a hard delete of an entity, or of one of its aspects,
 * removes beside the rows themselves. A dataset's schema fields go with it; an
 * entity's value rows go with it or with its structuredProperties aspect; a property's
 * definition takes its registry row, and a job then removes its values everywhere;
 * deleting a property's status restores it.
 */
import { CLEANUP_PROPERTY_VALUES } from '../jobKinds.js';
import { findEntityType, ruleKindOf } from '../registry/entityTypes.js';
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

function definitionGone(urn: string): Pick<DeleteDecision, 'registry' | 'jobs'> {
  return { registry: [{ urn, change: 'delete' }], jobs: [{ kind: CLEANUP_PROPERTY_VALUES, payload: { propertyUrn: urn } }] };
}

/** What deleting `aspect` of an entity of `entityType` also does, by the rules that govern the aspect. */
function ruleKind(entityType: string, aspect: string): string | undefined {
  const type = findEntityType(entityType);
  return type ? ruleKindOf(type, aspect) : undefined;
}

/** Deletes the entities found: an entity and its children, such as a dataset's schema fields (children first). */
export function decideEntityDelete(found: readonly EntityToDelete[]): DeleteDecision {
  const definitions = found.filter((e) => e.aspects.some((a) => ruleKind(e.entityType, a) === 'propertyDefinition')).map((e) => definitionGone(e.urn));
  return {
    entities: found.map((e) => ({ urn: e.urn, entityType: e.entityType })),
    aspects: [],
    valueRowsOf: [],
    registry: definitions.flatMap((d) => d.registry),
    jobs: definitions.flatMap((d) => d.jobs),
    events: found.filter((e) => hasLifecycle(e.entityType)).map((e) => ({ urn: e.urn, entityType: e.entityType, note: { event: 'hardDeleted' } })),
  };
}

/** Deletes one aspect of an entity that stays (the key aspect is the entity: see decideEntityDelete). */
export function decideAspectDelete(entity: EntityToDelete, aspect: string): DeleteDecision {
  if (!entity.aspects.includes(aspect)) return NOTHING_TO_DELETE;
  const base = { ...NOTHING_TO_DELETE, aspects: [{ urn: entity.urn, entityType: entity.entityType, aspect }] };
  switch (ruleKind(entity.entityType, aspect)) {
    case 'structuredProperties':
      return { ...base, valueRowsOf: [entity.urn] };
    case 'propertyDefinition':
      return { ...base, ...definitionGone(entity.urn), events: [{ urn: entity.urn, entityType: entity.entityType, note: { event: 'hardDeleted' } }] };
    case 'propertyStatus':
      return { ...base, registry: [{ urn: entity.urn, change: 'restore' }], events: [{ urn: entity.urn, entityType: entity.entityType, note: { event: 'restored' } }] };
    default:
      return base;
  }
}
