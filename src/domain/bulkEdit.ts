/**
 * A bulk edit of one property's values (docs/contract.md §13): the same change applied
 * to every entity a search selects, each entity's aspect computed from what readers see
 * of it now and written through the one write path, so every rule of a single write
 * holds. Pure: what to do to one entity's structuredProperties.
 */
import { ValidationError } from './errors.js';
import type { PropertyValueAssignment, StructuredPropertiesAspect } from './structuredProperties.js';
import { sameValue, type TypedValue } from './typedValue.js';
import { NO_CHANGE } from './writes/entityWrite.js';

export const BULK_OPERATIONS = ['set', 'add', 'remove'] as const;

/** `set`: the property has exactly these values; `add`: these values too; `remove`: these values, or the property, go. */
export type BulkOperation = (typeof BULK_OPERATIONS)[number];

export interface ValueEdit {
  readonly propertyUrn: string;
  readonly operation: BulkOperation;
  /** Canonical typed values (for `remove`, none: the property goes whatever its values). */
  readonly values: readonly TypedValue[];
}

export function parseBulkOperation(input: string, field = 'operation'): BulkOperation {
  const op = input.trim().toLowerCase();
  if ((BULK_OPERATIONS as readonly string[]).includes(op)) return op as BulkOperation;
  throw new ValidationError(`${field} must be one of ${BULK_OPERATIONS.join(', ')}, got ${JSON.stringify(input)}`, field);
}

/** Checks an edit before anything runs: set and add need values. */
export function checkValueEdit(edit: ValueEdit): void {
  if (edit.operation !== 'remove' && edit.values.length === 0) {
    throw new ValidationError(`A bulk ${edit.operation} needs at least one value for ${edit.propertyUrn}`, 'values');
  }
}

function union(a: readonly TypedValue[], b: readonly TypedValue[]): TypedValue[] {
  return [...a, ...b.filter((v) => !a.some((w) => sameValue(v, w)))];
}

/**
 * The entity's new structuredProperties after the edit, from what readers see now
 * (undefined: none), or NO_CHANGE when the edit changes nothing there. Other
 * properties' entries are kept as they are; the property's own entries (one per
 * attribution source) become one, where the first stood, as a GraphQL upsert does.
 */
export function editedValues(current: unknown, edit: ValueEdit): unknown {
  const all: PropertyValueAssignment[] = ((current as StructuredPropertiesAspect | undefined)?.properties ?? []).map((p) => ({ ...p }));
  const at = all.findIndex((e) => e.propertyUrn === edit.propertyUrn);
  const existing = valuesOf(current, edit.propertyUrn);
  const entries = all.filter((e, i) => e.propertyUrn !== edit.propertyUrn || i === at);
  let next: TypedValue[] | null;
  if (edit.operation === 'set') next = [...edit.values];
  else if (edit.operation === 'add') next = union(existing, edit.values);
  else next = edit.values.length === 0 ? null : existing.filter((v) => !edit.values.some((w) => sameValue(v, w)));
  if (next !== null && next.length === 0) next = null;
  if (next === null) {
    if (at < 0) return NO_CHANGE;
    return { properties: entries.filter((e) => e.propertyUrn !== edit.propertyUrn) };
  }
  const kept = entries.findIndex((e) => e.propertyUrn === edit.propertyUrn);
  const single = entries.length === all.length;
  if (at >= 0 && single && existing.length === next.length && existing.every((v, i) => sameValue(v, next![i]!))) return NO_CHANGE;
  if (kept >= 0) entries[kept] = { ...entries[kept]!, values: next };
  else entries.push({ propertyUrn: edit.propertyUrn, values: next });
  return { properties: entries };
}

/** The values the entity holds of the property (of all its entries, each once), from its structuredProperties (empty: none). */
export function valuesOf(aspect: unknown, propertyUrn: string): readonly TypedValue[] {
  const out: TypedValue[] = [];
  for (const p of (aspect as StructuredPropertiesAspect | undefined)?.properties ?? []) {
    if (p.propertyUrn === propertyUrn) out.push(...p.values.filter((v) => !out.some((w) => sameValue(v, w))));
  }
  return out;
}
