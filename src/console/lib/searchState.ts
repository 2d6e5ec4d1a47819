/**
 * A search as the address bar holds it, so it can be shared: `q` (keywords), `type`
 * and `platform` (repeatable), and per property `v:<name>` (values, repeatable),
 * `min:<name>` / `max:<name>` (a range) and `has:<name>` (`yes` or `no`).
 */
import type { FacetFilterInput } from '../generated/graphql.js';
import { searchField } from './properties.js';

export interface SearchState {
  readonly q: string;
  readonly params: URLSearchParams;
}

export const searchUrl = (params: URLSearchParams): string => `/search${params.size ? `?${params}` : ''}`;

/** The properties a search names (`v:`, `min:`, `max:`, `has:` keys), by qualified name. */
export function propertiesNamed(params: URLSearchParams): string[] {
  const names = new Set<string>();
  for (const key of params.keys()) {
    const [kind, ...rest] = key.split(':');
    if (['v', 'min', 'max', 'has'].includes(kind!) && rest.length > 0) names.add(rest.join(':'));
  }
  return [...names];
}

/** The search without anything about the properties named. */
export function withoutProperties(params: URLSearchParams, names: readonly string[]): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const name of names) for (const kind of ['v', 'min', 'max', 'has']) next.delete(`${kind}:${name}`);
  return next;
}

/** The facet a parameter key ticks values of, with its search field: `type`, `platform`, `v:<name>`. */
export function facetFieldOf(key: string): string | null {
  if (key === 'type') return '_entityType';
  if (key === 'platform') return 'platform';
  return key.startsWith('v:') ? searchField(key.slice(2)) : null;
}

/**
 * The GraphQL filters of the search: values ticked in one facet are alternatives (OR),
 * facets and ranges must all hold (AND). `except`: leave out that facet's own values,
 * for its counts (so ticking a value keeps the others' counts).
 */
export function filtersOf(params: URLSearchParams, except?: string): FacetFilterInput[] {
  if (except !== undefined) {
    const without = new URLSearchParams(params);
    without.delete(except);
    return filtersOf(without);
  }
  const filters: FacetFilterInput[] = [];
  const types = params.getAll('type');
  if (types.length) filters.push({ field: '_entityType', values: types });
  const platforms = params.getAll('platform');
  if (platforms.length) filters.push({ field: 'platform', values: platforms });
  const values = new Map<string, string[]>();
  for (const [key, value] of params) {
    const [kind, ...rest] = key.split(':');
    const name = rest.join(':');
    if (!name) continue;
    const field = searchField(name);
    if (kind === 'v') values.set(field, [...(values.get(field) ?? []), value]);
    if (kind === 'min' && value !== '') filters.push({ field, condition: 'GREATER_THAN_OR_EQUAL_TO', values: [value] });
    if (kind === 'max' && value !== '') filters.push({ field, condition: 'LESS_THAN_OR_EQUAL_TO', values: [value] });
    if (kind === 'has' && (value === 'yes' || value === 'no')) filters.push({ field, condition: 'EXISTS', negated: value === 'no' });
  }
  for (const [field, list] of values) filters.push({ field, values: list });
  return filters;
}

/** The filters as GraphQL's orFilters: one AND of them, or none. */
export const orOf = (filters: FacetFilterInput[]) => (filters.length ? [{ and: filters }] : []);

/** A copy of the params with `key` holding exactly `values`. */
export function withValues(params: URLSearchParams, key: string, values: readonly string[]): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete(key);
  for (const v of values) if (v !== '') next.append(key, v);
  return next;
}

export function toggled(params: URLSearchParams, key: string, value: string, on: boolean): URLSearchParams {
  const current = params.getAll(key).filter((v) => v !== value);
  return withValues(params, key, on ? [...current, value] : current);
}

