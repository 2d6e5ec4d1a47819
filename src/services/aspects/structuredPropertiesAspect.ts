/**
 * The structuredProperties aspect (SPEC 3). Every write is validated against the
 * definitions of the properties it names; the property_value rows follow in the same
 * transaction. Readers see only values whose property exists, is not soft deleted,
 * and whose generation (definition version) is current.
 *
 * Values of a soft-deleted property are hidden but kept: soft delete is reversible,
 * so a write that replaces the aspect carries them over untouched.
 */
import { checkRemoval, parseStructuredPropertiesAspect, validateAssignment, type DefinitionState, type PropertyValueAssignment, type StructuredPropertiesAspect } from '../../domain/structuredProperties.js';
import { effectiveDefinition, type PropertyDefinition } from '../../domain/propertyDefinition.js';
import type { TypedValue } from '../../domain/typedValue.js';
import { findProperties } from '../../store/propertyRegistry.js';
import { deleteEntityValues, valuesOfEntities, type ValueRow, type ValueWithState } from '../../store/propertyValues.js';
import type { AspectHandler, Queryable } from './handler.js';

type Visibility = 'visible' | 'soft-deleted' | 'gone';

function visibility(state: Pick<ValueWithState, 'generation' | 'currentGeneration' | 'removed'> | undefined): Visibility {
  if (!state || state.currentGeneration === null || state.currentGeneration !== state.generation) return 'gone';
  return state.removed ? 'soft-deleted' : 'visible';
}

function entriesOf(stored: unknown): PropertyValueAssignment[] {
  const props = (stored as StructuredPropertiesAspect | undefined)?.properties;
  return Array.isArray(props) ? props : [];
}

/** The entity's visible values by property URN. */
export async function visibleValues(db: Queryable, entityUrns: readonly string[]): Promise<Map<string, Map<string, TypedValue[]>>> {
  const states = await valuesOfEntities(db, entityUrns);
  const out = new Map<string, Map<string, TypedValue[]>>();
  for (const urn of entityUrns) {
    const visible = new Map<string, TypedValue[]>();
    for (const s of states.get(urn) ?? []) if (visibility(s) === 'visible') visible.set(s.propertyUrn, s.values as TypedValue[]);
    out.set(urn, visible);
  }
  return out;
}

export const structuredPropertiesHandler: AspectHandler = {
  createsEntity: false,

  view: async (db, items) => {
    const states = await valuesOfEntities(db, items.map((i) => i.urn));
    return items.map(({ urn, stored }) => {
      const byProperty = new Map((states.get(urn) ?? []).map((s) => [s.propertyUrn, s]));
      return { properties: entriesOf(stored).filter((e) => visibility(byProperty.get(e.propertyUrn)) === 'visible') };
    });
  },

  needsValueStates: true,

  propertiesNamedBy: (next) => {
    const props = (next as { properties?: unknown } | undefined)?.properties;
    if (!Array.isArray(props)) return [];
    return props.map((p) => (p as { propertyUrn?: unknown } | null)?.propertyUrn).filter((u): u is string => typeof u === 'string');
  },

  viewForWrite: (stored, ctx) => {
    const byProperty = new Map(ctx.valueStates.map((s) => [s.propertyUrn, s]));
    return { properties: entriesOf(stored).filter((e) => visibility(byProperty.get(e.propertyUrn)) === 'visible') };
  },

  prepare: async (tx, urn, next, stored, ctx) => {
    const parsed = parseStructuredPropertiesAspect(next);
    const states = new Map(ctx.valueStates.map((s) => [s.propertyUrn, s]));
    const current = new Map<string, TypedValue[]>();
    for (const [p, s] of states) if (visibility(s) === 'visible') current.set(p, s.values as TypedValue[]);

    // Definitions of properties the entity already holds came with the lock; look up only new ones.
    const definitions = new Map<string, DefinitionState>();
    const generations = new Map<string, bigint>();
    for (const [p, s] of states) {
      if (s.currentGeneration === null || s.definition === null) continue;
      definitions.set(p, { definition: effectiveDefinition(p, s.definition as PropertyDefinition), removed: s.removed });
      generations.set(p, s.currentGeneration);
    }
    const named = parsed.properties.map((p) => p.propertyUrn);
    for (const p of named) {
      const r = ctx.properties.get(p);
      if (r && !definitions.has(p)) {
        definitions.set(p, { definition: effectiveDefinition(p, r.definition as PropertyDefinition), removed: r.removed });
        generations.set(p, r.generation);
      }
    }
    const missing = named.filter((p) => !definitions.has(p) && !ctx.properties.has(p));
    if (missing.length > 0) {
      for (const [p, r] of await findProperties(tx, missing)) {
        definitions.set(p, { definition: effectiveDefinition(p, r.definition as PropertyDefinition), removed: r.removed });
        generations.set(p, r.generation);
      }
    }
    const rules = { targetType: urn.entityType.name, definitions, current };

    const entries: PropertyValueAssignment[] = [];
    const rows: ValueRow[] = [];
    for (const p of parsed.properties) {
      const values = validateAssignment(p.propertyUrn, p.values, rules);
      entries.push({ propertyUrn: p.propertyUrn, values, ...p.extra });
      rows.push({ propertyUrn: p.propertyUrn, generation: generations.get(p.propertyUrn)!, values });
    }
    for (const p of current.keys()) if (!named.includes(p)) checkRemoval(p, rules);
    for (const e of entriesOf(stored)) {
      const state = states.get(e.propertyUrn);
      if (!named.includes(e.propertyUrn) && visibility(state) === 'soft-deleted') {
        entries.push(e);
        rows.push({ propertyUrn: e.propertyUrn, generation: state!.generation, values: state!.values });
      }
    }
    return {
      stored: { properties: entries },
      visible: { properties: entries.slice(0, parsed.properties.length) },
      // The same values written again after a versioned change are new values: their rows must move to the current generation.
      forceWrite: rows.some((r) => states.get(r.propertyUrn)?.generation !== r.generation),
      valueRows: rows,
    };
  },

  onDelete: (tx, urn) => deleteEntityValues(tx, urn.value),
};
