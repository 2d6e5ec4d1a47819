/**
 * What the search service takes and answers (services/searchService.ts): DataHub's scroll,
 * aggregation and search-page inputs, and results that carry the engine requests they
 * sent (explain as a value).
 */
import type { AndFilter } from '../domain/searchFilter.js';
import type { EngineRequest } from '../search/request.js';
import type { Facet } from './searchFacets.js';

export interface ScrollInput {
  /** Entity type names (`dataset`) or GraphQL EntityType values (`DATASET`); empty means every type searched by default. */
  types: string[];
  query?: string | null;
  count?: number | null;
  scrollId?: string | null;
  orFilters?: AndFilter[] | null;
  /** Soft-deleted entities too (DataHub's searchFlags.includeSoftDeleted). */
  includeSoftDeleted?: boolean | null;
  /** DataHub's sortCriteria: the first decides. Empty: keyword hits by relevance, others in URN order. */
  sort?: ReadonlyArray<{ field: string; sortOrder: string }>;
}

/** What a search sent to the engine, exactly (an admin's X-Propgraph-Explain shows it). */
export interface Explained {
  readonly engineRequests: readonly EngineRequest[];
}

export interface ScrollResult extends Explained {
  nextScrollId: string | null;
  count: number;
  total: number;
  entities: Array<{ urn: string; entityType: string }>;
}

export interface AggregateInput {
  types: string[];
  query?: string | null;
  orFilters?: AndFilter[] | null;
  /** Absent or empty: the default facets (entity type, platform, properties shown in search filters). */
  facets?: string[] | null;
  maxAggValues?: number | null;
  includeSoftDeleted?: boolean | null;
}

export interface AggregateResult extends Explained {
  facets: Facet[];
}

/**
 * DataHub's searchAcrossEntities: a page by offset, with the facets its search page shows
 * (`facets`: none; `keys`: entity type and platform; `all`: those and every property shown
 * in search filters, DataHub's includeStructuredPropertyFacets) and, when nothing matched a
 * keyword query, `suggestions`: the query with a misspelt word replaced by the closest name
 * the index holds (DataHub's getSuggestions).
 */
export interface SearchPageInput extends ScrollInput {
  readonly start?: number | null;
  readonly facets?: 'none' | 'keys' | 'all';
  readonly suggestions?: boolean;
}

export interface SearchPageResult extends ScrollResult {
  start: number;
  facets: Facet[] | null;
  suggestions: Array<{ text: string; frequency: number }>;
}

export interface EntitySearchOptions {
  readonly query?: string | undefined;
  /** Page size; absent: the search default (domain/limits.ts pageSize). */
  readonly count?: number | undefined;
  readonly scrollId?: string | undefined;
  readonly sort?: string | undefined;
  readonly sortOrder?: string | undefined;
  readonly aspects?: readonly string[] | undefined;
}
