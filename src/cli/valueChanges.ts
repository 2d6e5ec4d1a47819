/**
 * Values as the CLI shows them, and what a write would change, value by value: the
 * dry runs of `dataset upsert`, `values set` and `values import`, and `history`.
 */
import { valueChanges, type ValueChange } from '../domain/valueHistory.js';
import { isDoubleValue, type TypedValue } from '../domain/typedValue.js';
import { printLine, type OutStream } from './terminal.js';

const PROPERTY_PREFIX = 'urn:li:structuredProperty:';

/** A property by its qualified name. */
export const propertyName = (urn: string): string => (urn.startsWith(PROPERTY_PREFIX) ? urn.slice(PROPERTY_PREFIX.length) : urn);

/** A value as written in files: a number as a number, a string as it is. */
export const valueText = (v: TypedValue): string => (isDoubleValue(v) ? String(v.double) : v.string);

/** `gold`, `gold, silver`, `(none)`; `?` when not known. */
export function valuesText(values: readonly TypedValue[] | null): string {
  if (values === null) return '?';
  return values.length === 0 ? '(none)' : values.map(valueText).join(', ');
}

export const changeText = (c: ValueChange): string => `${propertyName(c.propertyUrn)}: ${valuesText(c.before)} -> ${valuesText(c.after)}`;

/** What the entity's structuredProperties go through from `current` (undefined: none) to `next`. */
export function changesBetween(current: unknown, next: unknown): ValueChange[] {
  return valueChanges(current === undefined ? null : current, next);
}

export interface ChangeCounts {
  entities: number;
  changedEntities: number;
  changedValues: number;
}

/** Prints each entity that changes, its changes indented under it; counts them. */
export function printChanges(out: OutStream, entities: ReadonlyArray<{ urn: string; changes: readonly ValueChange[] }>): ChangeCounts {
  const counts: ChangeCounts = { entities: entities.length, changedEntities: 0, changedValues: 0 };
  for (const e of entities) {
    if (e.changes.length === 0) continue;
    counts.changedEntities++;
    counts.changedValues += e.changes.length;
    printLine(out, e.urn);
    for (const c of e.changes) printLine(out, `  ${changeText(c)}`);
  }
  return counts;
}
