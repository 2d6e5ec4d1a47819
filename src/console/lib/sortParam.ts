/**
 * A search's sort as the address bar holds it, spelt as the CLI's `--sort` takes it:
 * `sort=name`, `sort=lastModified:desc`, `sort=acme.privacy.retentionDays:desc` (a
 * property by its qualified name; `structuredProperties.<name>` when the name is also
 * one of the sort fields). The server's table of sort fields decides which words are
 * fields (src/domain/searchSort.ts).
 */
import { SORT_FIELDS } from '../../domain/searchSort.js';
import { PROPERTY_FIELD_PREFIX } from '../../domain/searchFields.js';

export type SortOrder = 'ASCENDING' | 'DESCENDING';

export interface SortCriterion {
  readonly field: string;
  readonly sortOrder: SortOrder;
}

/** What a sort orders by, for the console's choices: the name, the last write, or a property's value. */
export type SortBy = { readonly kind: 'name' } | { readonly kind: 'lastModified' } | { readonly kind: 'property'; readonly qualifiedName: string } | { readonly kind: 'field'; readonly field: string };

/** The criterion the `sort` parameter names, or none (the server's default order). */
export function sortOf(param: string | null): SortCriterion | null {
  const spec = param?.trim() ?? '';
  if (spec === '') return null;
  const m = /^(.*?)(?::(asc|desc))?$/i.exec(spec)!;
  const name = m[1]!;
  const sortOrder: SortOrder = m[2]?.toLowerCase() === 'desc' ? 'DESCENDING' : 'ASCENDING';
  const field = Object.hasOwn(SORT_FIELDS, name) || name.startsWith(PROPERTY_FIELD_PREFIX) ? name : `${PROPERTY_FIELD_PREFIX}${name}`;
  return { field, sortOrder };
}

/** The `sort` parameter of a criterion (the inverse of sortOf). */
export function sortParam(criterion: SortCriterion): string {
  const { field } = criterion;
  const short = field.startsWith(PROPERTY_FIELD_PREFIX) && !Object.hasOwn(SORT_FIELDS, field.slice(PROPERTY_FIELD_PREFIX.length)) ? field.slice(PROPERTY_FIELD_PREFIX.length) : field;
  return criterion.sortOrder === 'DESCENDING' ? `${short}:desc` : short;
}

/** What a criterion orders by. */
export function sortByOf(criterion: SortCriterion): SortBy {
  if (criterion.field.startsWith(PROPERTY_FIELD_PREFIX)) return { kind: 'property', qualifiedName: criterion.field.slice(PROPERTY_FIELD_PREFIX.length) };
  const key = Object.hasOwn(SORT_FIELDS, criterion.field) ? SORT_FIELDS[criterion.field] : undefined;
  if (key === 'name') return { kind: 'name' };
  if (key === 'modified') return { kind: 'lastModified' };
  return { kind: 'field', field: criterion.field };
}

/** The search field a choice sorts on. */
export function sortFieldOf(by: SortBy): string {
  if (by.kind === 'name') return 'name';
  if (by.kind === 'lastModified') return 'lastModified';
  if (by.kind === 'property') return `${PROPERTY_FIELD_PREFIX}${by.qualifiedName}`;
  return by.field;
}

/** A copy of the params sorted by `criterion` (none: the default order). */
export function withSort(params: URLSearchParams, criterion: SortCriterion | null): URLSearchParams {
  const next = new URLSearchParams(params);
  if (criterion) next.set('sort', sortParam(criterion));
  else next.delete('sort');
  return next;
}
