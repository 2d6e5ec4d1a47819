/**
 * Saved views (DataHub's "views"): a named search scope, the entity types and filter a
 * search gets when it names the view. Personal views belong to the person who made them;
 * global views are the organisation's. Stored as DataHub stores them, the `dataHubViewInfo`
 * aspect of a `dataHubView` entity, so DataHub's own clients read them as they wrote them.
 * The rules here: what a view may hold, its aspect, and how it scopes a search.
 */
import { ValidationError } from './errors.js';
import { quoteInput } from './inputLimits.js';
import { LIMITS } from './limits.js';
import { entityTypeByGraphql } from './registry/entityTypes.js';
import { entityTypeUrn, tryParseEntityType, type UrnNamespace } from './typeUrns.js';
import { MAX_QUERY_LENGTH } from './luceneQuery.js';
import { filterFromOrFilters, type AndFilter, type FacetFilter, type FilterCondition } from './searchFilter.js';
import { pageSortOf } from './searchSort.js';

export type ViewType = 'PERSONAL' | 'GLOBAL';
export type LogicalOperator = 'AND' | 'OR';

export type SortOrder = 'ASCENDING' | 'DESCENDING';

export interface ViewDefinition {
  /** GraphQL EntityType values; empty: every type a search covers. */
  readonly entityTypes: readonly string[];
  readonly filter: { readonly operator: LogicalOperator; readonly filters: readonly FacetFilter[] };
  /**
   * propgraph's additions, absent from DataHub's record: the keywords and the sort of the
   * search the view was saved from, so a client (the console) reopens that search whole. A
   * search naming the view (`viewUrn`) takes its types and filter only, as DataHub's do.
   */
  readonly query?: string;
  readonly sortCriterion?: { readonly field: string; readonly sortOrder: SortOrder };
}

export interface SavedView {
  readonly urn: string;
  readonly viewType: ViewType;
  readonly name: string;
  readonly description: string | null;
  readonly definition: ViewDefinition;
  readonly created: { readonly time: number; readonly actor: string };
  readonly lastModified: { readonly time: number; readonly actor: string };
}

/** A filter as a client sends it: the condition is checked against the search grammar's. */
export interface FilterInput {
  readonly field: string;
  readonly values?: readonly string[] | null;
  readonly condition?: string | null;
  readonly negated?: boolean | null;
}

export interface ViewInput {
  readonly name?: string | null | undefined;
  readonly description?: string | null | undefined;
  readonly definition?: {
    readonly entityTypes?: readonly string[] | null;
    readonly filter?: { readonly operator?: string | null; readonly filters?: readonly FilterInput[] | null } | null;
    readonly query?: string | null;
    readonly sortCriterion?: { readonly field: string; readonly sortOrder: string } | null;
  } | null | undefined;
}

/** Filters one view may hold. */
export const MAX_VIEW_FILTERS = 100;

export function parseViewType(value: unknown, field: string): ViewType {
  if (value === 'PERSONAL' || value === 'GLOBAL') return value;
  throw new ValidationError(`${field} must be PERSONAL or GLOBAL, got ${quoteInput(String(value))}`, field);
}

function parseName(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ValidationError(`${field} is required: give the view a name`, field);
  if (value.length > LIMITS.nameLength) throw new ValidationError(`${field} is longer than ${LIMITS.nameLength} characters`, field);
  return value.trim();
}

function parseDescription(value: unknown, field: string): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string') throw new ValidationError(`${field} must be text`, field);
  if (value.length > LIMITS.descriptionLength) throw new ValidationError(`${field} is longer than ${LIMITS.descriptionLength} characters`, field);
  return value;
}

/** A view's definition, checked as a search would check it: known entity types, filters the search grammar takes. */
export function parseDefinition(value: ViewInput['definition'], field: string): ViewDefinition {
  if (!value) throw new ValidationError(`${field} is required: the entity types and filter the view applies`, field);
  const entityTypes = [...new Set(value.entityTypes ?? [])];
  entityTypes.forEach((t, i) => {
    if (!entityTypeByGraphql(t)) throw new ValidationError(`${field}.entityTypes[${i}] ${quoteInput(t)} is not an entity type`, `${field}.entityTypes[${i}]`);
  });
  const operator = value.filter?.operator ?? 'AND';
  if (operator !== 'AND' && operator !== 'OR') throw new ValidationError(`${field}.filter.operator must be AND or OR, got ${quoteInput(String(operator))}`, `${field}.filter.operator`);
  const filters: FacetFilter[] = (value.filter?.filters ?? []).map((f) => ({
    field: f.field,
    values: [...(f.values ?? [])],
    ...(f.condition ? { condition: f.condition as FilterCondition } : {}),
    ...(f.negated ? { negated: true } : {}),
  }));
  if (filters.length > MAX_VIEW_FILTERS) throw new ValidationError(`${field}.filter.filters holds ${filters.length} filters, more than the limit of ${MAX_VIEW_FILTERS}`, `${field}.filter.filters`);
  // The search grammar's own checks (conditions, values), naming the filter at fault.
  filters.forEach((f, i) => {
    try {
      filterFromOrFilters([{ and: [f] }]);
    } catch (err) {
      if (err instanceof ValidationError) throw new ValidationError(`${field}.filter.filters[${i}]: ${err.message}`, `${field}.filter.filters[${i}]`);
      throw err;
    }
  });
  const query = parseQuery(value.query, `${field}.query`);
  const sortCriterion = parseSort(value.sortCriterion, `${field}.sortCriterion`);
  return { entityTypes, filter: { operator, filters }, ...(query ? { query } : {}), ...(sortCriterion ? { sortCriterion } : {}) };
}

/** The keywords kept with a view; none for `*` (every entity) or blank. */
function parseQuery(value: string | null | undefined, field: string): string | null {
  const query = value?.trim() ?? '';
  if (query.length > MAX_QUERY_LENGTH) throw new ValidationError(`${field} is longer than the limit of ${MAX_QUERY_LENGTH} characters`, field);
  return query === '' || query === '*' ? null : query;
}

/** The sort kept with a view, checked as a search checks its sort (src/domain/searchSort.ts). */
function parseSort(value: { readonly field: string; readonly sortOrder: string } | null | undefined, field: string): ViewDefinition['sortCriterion'] | null {
  if (!value) return null;
  pageSortOf(value.field, `${field}.field`);
  if (value.sortOrder !== 'ASCENDING' && value.sortOrder !== 'DESCENDING') throw new ValidationError(`${field}.sortOrder must be ASCENDING or DESCENDING, got ${quoteInput(String(value.sortOrder))}`, `${field}.sortOrder`);
  return { field: value.field, sortOrder: value.sortOrder };
}

/** A new view, checked. */
export function newView(urn: string, viewType: ViewType, input: ViewInput, actor: string, now: number): SavedView {
  const stamp = { time: now, actor };
  return { urn, viewType, name: parseName(input.name, 'name'), description: parseDescription(input.description, 'description'), definition: parseDefinition(input.definition, 'definition'), created: stamp, lastModified: stamp };
}

/** A view with the fields an update names changed; the rest as they were. */
export function updatedView(view: SavedView, input: ViewInput, actor: string, now: number): SavedView {
  return {
    ...view,
    name: input.name === undefined || input.name === null ? view.name : parseName(input.name, 'name'),
    description: input.description === undefined ? view.description : parseDescription(input.description, 'description'),
    definition: input.definition === undefined || input.definition === null ? view.definition : parseDefinition(input.definition, 'definition'),
    lastModified: { time: now, actor },
  };
}

/** The dataHubViewInfo aspect of a view, as DataHub writes it (its entity types in the server's namespace). */
export function viewInfoOf(view: SavedView, namespace: UrnNamespace): Record<string, unknown> {
  return {
    name: view.name,
    ...(view.description !== null ? { description: view.description } : {}),
    type: view.viewType,
    definition: {
      entityTypes: view.definition.entityTypes.map((t) => entityTypeUrn(entityTypeByGraphql(t)!, namespace)),
      filter: { or: view.definition.filter.operator === 'OR' ? view.definition.filter.filters.map((f) => ({ and: [criterion(f)] })) : [{ and: view.definition.filter.filters.map(criterion) }] },
      ...(view.definition.query ? { query: view.definition.query } : {}),
      ...(view.definition.sortCriterion ? { sortCriterion: view.definition.sortCriterion } : {}),
    },
    created: view.created,
    lastModified: view.lastModified,
  };
}

/** DataHub's Criterion of a filter. */
function criterion(f: FacetFilter) {
  return { field: f.field, values: f.values ?? [], condition: f.condition ?? 'EQUAL', negated: f.negated ?? false };
}

/** A stored dataHubViewInfo aspect as a view; null when it does not hold one (written by another client in another shape). */
export function viewOf(urn: string, info: unknown): SavedView | null {
  if (!info || typeof info !== 'object') return null;
  const i = info as Record<string, unknown>;
  if (typeof i.name !== 'string' || (i.type !== 'PERSONAL' && i.type !== 'GLOBAL')) return null;
  const definition = (i.definition ?? {}) as { entityTypes?: unknown; filter?: { or?: unknown }; query?: unknown; sortCriterion?: unknown };
  const entityTypes = (Array.isArray(definition.entityTypes) ? definition.entityTypes : []).flatMap((u) => {
    const type = tryParseEntityType(u);
    return type ? [type.graphql] : [];
  });
  const branches = Array.isArray(definition.filter?.or) ? (definition.filter!.or as Array<{ and?: unknown }>) : [];
  const asFilter = (c: unknown): FacetFilter[] => {
    if (!c || typeof c !== 'object') return [];
    const f = c as Record<string, unknown>;
    if (typeof f.field !== 'string') return [];
    const values = Array.isArray(f.values) ? f.values.filter((v): v is string => typeof v === 'string') : typeof f.value === 'string' ? [f.value] : [];
    return [{ field: f.field, values, ...(typeof f.condition === 'string' ? { condition: f.condition as FilterCondition } : {}), ...(f.negated === true ? { negated: true } : {}) }];
  };
  // One AND branch is an AND view; single-criterion branches are an OR view.
  const operator: LogicalOperator = branches.length > 1 ? 'OR' : 'AND';
  const filters = operator === 'OR' ? branches.flatMap((b) => (Array.isArray(b.and) ? b.and.flatMap(asFilter) : [])) : Array.isArray(branches[0]?.and) ? branches[0]!.and.flatMap(asFilter) : [];
  const stamp = (v: unknown) => {
    const s = (v ?? {}) as Record<string, unknown>;
    return { time: typeof s.time === 'number' ? s.time : 0, actor: typeof s.actor === 'string' ? s.actor : '' };
  };
  const sort = (definition.sortCriterion ?? {}) as Record<string, unknown>;
  const sortCriterion = typeof sort.field === 'string' && (sort.sortOrder === 'ASCENDING' || sort.sortOrder === 'DESCENDING') ? { sortCriterion: { field: sort.field, sortOrder: sort.sortOrder as SortOrder } } : {};
  const query = typeof definition.query === 'string' && definition.query !== '' ? { query: definition.query } : {};
  return {
    urn,
    viewType: i.type,
    name: i.name,
    description: typeof i.description === 'string' ? i.description : null,
    definition: { entityTypes, filter: { operator, filters }, ...query, ...sortCriterion },
    created: stamp(i.created),
    lastModified: stamp(i.lastModified),
  };
}

/**
 * A search scoped by a view: the view's entity types where the search names none (or the
 * types both name), and its filter ANDed with the search's (DataHub applies a view the same way).
 */
export function scopeByView(view: SavedView, search: { readonly types: readonly string[]; readonly orFilters: AndFilter[] | null }): { types: string[]; orFilters: AndFilter[] | null } {
  const viewTypes = view.definition.entityTypes;
  const types = search.types.length === 0 ? [...viewTypes] : viewTypes.length === 0 ? [...search.types] : search.types.filter((t) => viewTypes.includes(t));
  if (search.types.length > 0 && viewTypes.length > 0 && types.length === 0) {
    throw new ValidationError(`the view ${view.urn} covers ${viewTypes.join(', ')}, none of the types searched (${search.types.join(', ')})`, 'viewUrn');
  }
  const { operator, filters } = view.definition.filter;
  if (filters.length === 0) return { types, orFilters: search.orFilters };
  const viewBranches: AndFilter[] = operator === 'AND' ? [{ and: [...filters] }] : filters.map((f) => ({ and: [f] }));
  const searchBranches = search.orFilters && search.orFilters.length > 0 ? search.orFilters : [{ and: [] }];
  // (view) AND (search) as an OR of ANDs: every pair of branches.
  const orFilters = viewBranches.flatMap((v) => searchBranches.map((s) => ({ and: [...(v.and ?? []), ...(s.and ?? [])] })));
  return { types, orFilters };
}
