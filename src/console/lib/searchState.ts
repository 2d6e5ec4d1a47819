/**
 * A search as the address bar holds it, so it can be shared: `q` (keywords), `type`
 * and `platform` (repeatable), and per property `v:<name>` (values, repeatable),
 * `min:<name>` / `max:<name>` (a range) and `has:<name>` (`yes` or `no`).
 */
import type { FacetFilterInput } from '../generated/graphql';
import { searchField } from './properties';

export interface SearchState {
  readonly q: string;
  readonly params: URLSearchParams;
}

export const searchUrl = (params: URLSearchParams): string => `/search${params.size ? `?${params}` : ''}`;

/** The GraphQL filters of the search (one AND group). */
export function filtersOf(params: URLSearchParams): FacetFilterInput[] {
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
