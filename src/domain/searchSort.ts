/**
 * The fields a search may be sorted on, by the names clients send: the URN (every
 * scroll's default, paged by keyset), the creation time, the last write, the name, and
 * a structured property's value (`structuredProperties.<qualified name>`).
 * DataHub's clients spell these several ways (its web app sorts definitions on
 * `createdTime`, its search page on `lastOperationTime` and `_entityName`); each
 * spelling is a row here.
 */
import { quoteInput } from './inputLimits.js';
import { ValidationError } from './errors.js';
import { parseSearchField, PROPERTY_FIELD_PREFIX } from './searchFields.js';
import type { TypedValue } from './typedValue.js';

export type SortKey = 'urn' | 'created' | 'modified' | 'name';

export const SORT_FIELDS: Readonly<Record<string, SortKey>> = {
  urn: 'urn',
  createdTime: 'created',
  created: 'created',
  lastModifiedTime: 'modified',
  lastModified: 'modified',
  lastModifiedAt: 'modified',
  lastOperationTime: 'modified',
  _entityName: 'name',
  name: 'name',
  displayName: 'name',
};

/** The sort key a field names, or a 400 naming the field and the ones there are. */
export function sortKeyOf(field: string, name: string): SortKey {
  const key = Object.hasOwn(SORT_FIELDS, field) ? SORT_FIELDS[field] : undefined;
  if (key === undefined) throw new ValidationError(`${name} cannot sort on ${quoteInput(field)}; sort on one of ${Object.keys(SORT_FIELDS).join(', ')} or ${PROPERTY_FIELD_PREFIX}<qualified name>`, name);
  return key;
}

/** What a sort field names: a sort key, or a property (its search field name) whose values order the hits. */
export type PageSort = { readonly key: SortKey } | { readonly property: string };

export function pageSortOf(field: string, name: string): PageSort {
  if (field.startsWith(PROPERTY_FIELD_PREFIX)) {
    try {
      if (parseSearchField(field).kind === 'property') return { property: field };
    } catch (err) {
      if (err instanceof ValidationError) throw new ValidationError(`${name}: ${err.message}`, name);
      throw err;
    }
  }
  return { key: sortKeyOf(field, name) };
}

/**
 * Hits ordered by a property's value: numbers by value, text (and dates, written
 * YYYY-MM-DD) by its characters, case ignored; an entity holding several values sorts by
 * its smallest ascending and its largest descending (as DataHub's search does); entities
 * without a value come last either way; ties by URN.
 */
export function orderByValue<H extends { readonly urn: string }>(hits: readonly H[], values: ReadonlyMap<string, readonly TypedValue[]>, direction: 'asc' | 'desc'): H[] {
  const keyOf = (urn: string): number | string | undefined => {
    const held = values.get(urn) ?? [];
    const keys = held.map((v) => ('double' in v ? v.double : v.string.toLowerCase()));
    if (keys.length === 0) return undefined;
    return keys.reduce((best, k) => ((direction === 'asc' ? compare(k, best) < 0 : compare(k, best) > 0) ? k : best));
  };
  const keyed = hits.map((hit) => ({ hit, key: keyOf(hit.urn) }));
  keyed.sort((a, b) => {
    if (a.key === undefined || b.key === undefined) return a.key === b.key ? byUrn(a.hit, b.hit) : a.key === undefined ? 1 : -1;
    const c = compare(a.key, b.key);
    return (direction === 'asc' ? c : -c) || byUrn(a.hit, b.hit);
  });
  return keyed.map((k) => k.hit);
}

function compare(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const byUrn = (a: { urn: string }, b: { urn: string }) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0);
