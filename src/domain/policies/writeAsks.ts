/**
 * Which privileges a write asks for, entity by entity and property by property (docs/
 * security.md, "Policies"): what the plan names shows some of it before anything is
 * loaded (an aspect written, an entity deleted), what the decision shows the rest (whose
 * values change, whether a status write soft deletes, whether the write creates the
 * entity). The resource is the entity as it stands before the write, or as the write
 * leaves it when the write creates it. Pure.
 */
import type { EntityTypeInfo } from '../registry/entityTypes.js';
import { sameValue, type TypedValue } from '../typedValue.js';
import { parseUrn, type Urn } from '../urn.js';
import type { EntityPlan } from '../writes/plan.js';
import { visibleValues } from '../writes/valueVisibility.js';
import type { EntityWriteDecision } from '../writes/writeDecision.js';
import type { EntityState } from '../writes/writeState.js';
import { ALL_PROPERTIES } from './evaluate.js';
import { qualifiedNameOf } from './policy.js';
import type { Privilege } from './privileges.js';
import { resourceFactsOf, type ResourceFacts } from './resources.js';

/** One privilege a write asks for, with what it is for (named in a refusal). */
export interface Ask {
  readonly privilege: Privilege;
  /** For a value or definition privilege: the property concerned (ALL_PROPERTIES: every one). */
  readonly property?: string;
  readonly what: string;
}

const STRUCTURED_PROPERTIES = 'structuredProperties';
const STATUS = 'status';

/** The privilege a hard delete of an entity of this type asks for: its management privilege, or DELETE_ENTITY. */
function deletePrivilege(type: EntityTypeInfo): Privilege {
  return type.writePrivilege === 'EDIT_ENTITY' || type.writePrivilege === 'MANAGE_STRUCTURED_PROPERTIES' ? 'DELETE_ENTITY' : type.writePrivilege;
}

/** The property an ask about a definition concerns: the property itself. */
function definitionProperty(urn: Urn): { property?: string } {
  return urn.entityType.writePrivilege === 'MANAGE_STRUCTURED_PROPERTIES' ? { property: urn.value } : {};
}

/**
 * What the plan asks of one entity before anything is loaded. Writes of values and of
 * an ordinary entity's status are left to the decision (which values change, whether it
 * soft deletes).
 */
export function planAsks(entity: EntityPlan): Ask[] {
  const urn = entity.urn;
  const type = urn.entityType;
  if (entity.deleteEntity) return [{ privilege: deletePrivilege(type), ...definitionProperty(urn), what: `Deleting ${urn.value}` }];
  const asks: Ask[] = [];
  for (const c of entity.changes) {
    if (c.op === 'delete') {
      if (c.aspect === type.keyAspect || (c.aspect === type.definitionAspect && type.writePrivilege === 'MANAGE_STRUCTURED_PROPERTIES')) {
        asks.push({ privilege: deletePrivilege(type), ...definitionProperty(urn), what: `Deleting ${c.aspect} of ${urn.value}` });
      } else if (type.writePrivilege !== 'EDIT_ENTITY') {
        asks.push({ privilege: type.writePrivilege, ...definitionProperty(urn), what: `Deleting ${c.aspect} of ${urn.value}` });
      } else if (c.aspect === STRUCTURED_PROPERTIES) {
        asks.push({ privilege: 'EDIT_ENTITY_PROPERTIES', property: ALL_PROPERTIES, what: `Deleting every structured property value of ${urn.value}` });
      } else if (c.aspect === STATUS) {
        asks.push({ privilege: 'SOFT_DELETE_ENTITY', what: `Deleting the status of ${urn.value}` });
      } else {
        asks.push({ privilege: 'EDIT_ENTITY', what: `Deleting ${c.aspect} of ${urn.value}` });
      }
      continue;
    }
    if (type.writePrivilege !== 'EDIT_ENTITY') asks.push({ privilege: type.writePrivilege, ...definitionProperty(urn), what: `Writing ${c.aspect} of ${urn.value}` });
    // A key aspect stores nothing: it only names the entity, which the decision shows it creates or not.
    else if (c.aspect !== STRUCTURED_PROPERTIES && c.aspect !== STATUS && c.aspect !== type.keyAspect) asks.push({ privilege: 'EDIT_ENTITY', what: `Writing ${c.aspect} of ${urn.value}` });
  }
  return asks;
}

/** An entity's visible values by property, as its held rows show them. */
export function visibleValuesOf(urn: Urn, state: Pick<EntityState, 'values'>): Map<string, readonly TypedValue[]> {
  const out = new Map<string, readonly TypedValue[]>();
  for (const held of state.values) {
    const values = visibleValues(held, held.values, urn.entityType.name);
    if (values !== null && values.length > 0) out.set(held.propertyUrn, values);
  }
  return out;
}

function sameSet(a: readonly TypedValue[], b: readonly TypedValue[]): boolean {
  return a.length === b.length && a.every((v) => b.some((w) => sameValue(v, w))) && b.every((v) => a.some((w) => sameValue(v, w)));
}

/**
 * The properties whose visible values the decision changes. A row written again with the
 * same values (carried over, re-asserted under a new generation, or rewritten by a
 * migration as readers already see it) changes nothing readers see.
 */
export function changedProperties(urn: Urn, decision: Pick<EntityWriteDecision, 'valueRows'>, state: Pick<EntityState, 'values'>): string[] {
  if (decision.valueRows === null) return [];
  const before = visibleValuesOf(urn, state);
  const after = new Map<string, readonly TypedValue[]>();
  for (const row of decision.valueRows) {
    const held = state.values.find((h) => h.propertyUrn === row.propertyUrn);
    // A row kept under a hidden generation (a soft-deleted property's) shows what it showed.
    const shown = held && held.generation === row.generation ? visibleValues(held, row.values as TypedValue[], urn.entityType.name) : (row.values as TypedValue[]);
    if (shown !== null && shown.length > 0) after.set(row.propertyUrn, shown);
  }
  return [...new Set([...before.keys(), ...after.keys()])].filter((p) => !sameSet(before.get(p) ?? [], after.get(p) ?? []));
}

function removedFlag(aspect: unknown): boolean {
  return (aspect as { removed?: unknown } | undefined)?.removed === true;
}

/** What only the decision shows: a created entity, changed values, a soft delete or restore. */
export function decisionAsks(urn: Urn, decision: EntityWriteDecision, state: EntityState): Ask[] {
  const type = urn.entityType;
  if (type.writePrivilege !== 'EDIT_ENTITY') return [];
  const asks: Ask[] = [];
  if (decision.creates) asks.push({ privilege: 'EDIT_ENTITY', what: `Creating ${urn.value}` });
  const status = decision.writes.find((w) => w.aspect === STATUS);
  if (status) {
    const soft = removedFlag(status.metadata) !== removedFlag(state.aspects.get(STATUS)?.metadata);
    asks.push(soft ? { privilege: 'SOFT_DELETE_ENTITY', what: `${removedFlag(status.metadata) ? 'Soft deleting' : 'Restoring'} ${urn.value}` } : { privilege: 'EDIT_ENTITY', what: `Writing status of ${urn.value}` });
  }
  for (const property of changedProperties(urn, decision, state)) {
    asks.push({ privilege: 'EDIT_ENTITY_PROPERTIES', property, what: `Changing the values of ${qualifiedNameOf(property)} on ${urn.value}` });
  }
  return asks;
}

/** The entity a write is judged on: as it stands, or, when the write creates it, as the write leaves it. */
export function factsOfWrite(urn: Urn, decision: EntityWriteDecision, state: EntityState): ResourceFacts {
  if (state.existence !== 'created') {
    return resourceFactsOf(urn, new Map([...state.aspects].map(([name, a]) => [name, a.metadata])), visibleValuesOf(urn, state));
  }
  const aspects = new Map(decision.writes.map((w) => [w.aspect, w.metadata]));
  const values = new Map((decision.valueRows ?? []).map((r) => [r.propertyUrn, r.values as TypedValue[]]));
  return resourceFactsOf(urn, aspects, values);
}

/** An entity known only by its URN (type, URN, platform): enough for criteria that read nothing more. */
export function factsOfUrn(urn: Urn | string): ResourceFacts {
  return resourceFactsOf(typeof urn === 'string' ? parseUrn(urn) : urn, new Map(), new Map());
}
