/**
 * The structuredProperties aspect (docs/contract.md §3): every write is validated against the
 * definitions of the properties it names and replaces the entity's value rows.
 *
 * Values of a soft-deleted property are hidden but kept: soft delete is reversible, so
 * a write that replaces the aspect carries them over untouched.
 */
import { effectiveDefinition } from '../propertyDefinition.js';
import {
  checkRemoval,
  parseStructuredPropertiesAspect,
  validateAssignment,
  type AssignmentContext,
  type DefinitionState,
  type PropertyValueAssignment,
} from '../structuredProperties.js';
import { sameValue, type TypedValue } from '../typedValue.js';
import type { AspectRules, AspectState } from './aspectRules.js';
import { entriesOf, visibilityOf, visibleStructuredProperties, visibleValues } from './valueVisibility.js';
import type { AspectDecision, ValueRow } from './writeDecision.js';

/** The property URNs a (not yet validated) structuredProperties value names. */
export function propertiesNamedBy(value: unknown): string[] {
  const props = (value as { properties?: unknown } | undefined)?.properties;
  if (!Array.isArray(props)) return [];
  return props.map((p) => (p as { propertyUrn?: unknown } | null)?.propertyUrn).filter((u): u is string => typeof u === 'string');
}

function assignmentContext(state: AspectState): AssignmentContext {
  const definitions = new Map<string, DefinitionState>();
  for (const [urn, record] of state.properties) definitions.set(urn, { definition: effectiveDefinition(urn, record.definition), removed: record.removed });
  const current = new Map<string, readonly TypedValue[]>();
  for (const held of state.values) {
    const values = visibleValues(held, held.values, state.urn.entityType.name);
    if (values !== null) current.set(held.propertyUrn, values);
  }
  return { targetType: state.urn.entityType.name, definitions, current };
}

export function decideStructuredProperties(next: unknown, state: AspectState): AspectDecision {
  const parsed = parseStructuredPropertiesAspect(next);
  const rules = assignmentContext(state);
  const held = new Map(state.values.map((h) => [h.propertyUrn, h]));
  const named = new Set(parsed.properties.map((p) => p.propertyUrn));

  const entries: PropertyValueAssignment[] = [];
  const dropped: string[] = [];
  // One value row per property: the values of all its entries (one per attribution source), each once.
  const byProperty = new Map<string, { generation: bigint; values: TypedValue[] }>();
  for (const p of parsed.properties) {
    if (!rules.definitions.has(p.propertyUrn) && state.undefinedPropertyValues === 'drop') {
      named.delete(p.propertyUrn);
      dropped.push(p.propertyUrn);
      continue;
    }
    const values = validateAssignment(p.propertyUrn, p.values, rules);
    entries.push({ propertyUrn: p.propertyUrn, values, ...p.extra });
    const row = byProperty.get(p.propertyUrn);
    if (row) row.values.push(...values.filter((v) => !row.values.some((w) => sameValue(v, w))));
    else byProperty.set(p.propertyUrn, { generation: state.properties.get(p.propertyUrn)!.generation, values: [...values] });
  }
  const rows: ValueRow[] = [...byProperty].map(([propertyUrn, row]) => ({ propertyUrn, ...row }));
  for (const p of rules.current.keys()) if (!named.has(p)) checkRemoval(p, rules);
  const visibleCount = entries.length;
  for (const e of entriesOf(state.stored)) {
    const h = held.get(e.propertyUrn);
    if (!named.has(e.propertyUrn) && visibilityOf(h) === 'soft-deleted') {
      entries.push(e);
      if (!rows.some((r) => r.propertyUrn === e.propertyUrn)) rows.push({ propertyUrn: e.propertyUrn, generation: h!.generation, values: h!.values });
    }
  }
  return {
    stored: { properties: entries },
    visible: { properties: entries.slice(0, visibleCount) },
    // The same values written again after a versioned change (or a migration) are new values: their rows move to the
    // current generation. A hidden row (an older generation, a property gone) goes even when the aspect reads the same.
    store: rows.some((r) => held.get(r.propertyUrn)?.generation !== r.generation) || state.values.some((h) => !rows.some((r) => r.propertyUrn === h.propertyUrn)) ? 'always' : 'if-changed',
    valueRows: rows,
    registry: null,
    jobs: [],
    reliesOn: [...new Set([...named, ...rules.current.keys(), ...rows.map((r) => r.propertyUrn)])],
    events: [],
    // Values of properties that do not exist, dropped (DROP_UNDEFINED_PROPERTY_VALUES): the write service logs a warning, as DataHub does.
    ...(dropped.length > 0 ? { report: { droppedValuesOf: dropped } } : {}),
  };
}

export const structuredPropertiesRules: AspectRules = {
  createsEntity: false,
  needs: (_urn, value) => ({ aspects: [], values: true, properties: propertiesNamedBy(value), searchFields: [] }),
  view: (stored, context) => visibleStructuredProperties(stored, context.values, context.urn.entityType.name),
  decide: decideStructuredProperties,
};
