/**
 * A search as services ask for it, in domain terms: entity types, keywords, a filter
 * tree whose field names are resolved (a key field, or a property generation), facets
 * and a page. The search module alone turns this into Meilisearch's vocabulary
 * (attributes, filter strings, sort keys, cursors).
 */
import type { FilterNode } from '../domain/searchFilter.js';
import type { KeyField } from '../domain/searchFields.js';
import type { SortKey } from '../domain/searchSort.js';

/** What a field name stands for, as the registry resolved it. */
export type ResolvedField =
  | { readonly kind: 'key'; readonly name: KeyField }
  | { readonly kind: 'property'; readonly generation: bigint; readonly numeric: boolean };

export interface SearchRequest {
  /** Entity type names; each must be searchable. */
  readonly types: readonly string[];
  /** Words to find (null: none); see splitKeywords(). */
  readonly keywords: string | null;
  /** Constants folded; every leaf names a field of `fields`; `none` matches nothing. */
  readonly filter: FilterNode;
  readonly fields: ReadonlyMap<string, ResolvedField>;
  /** Whether soft-deleted entities may be hits (only those the filter lets through). */
  readonly includeRemoved: boolean;
}

/**
 * `relevance` ranks keyword hits (and pages by position through the first
 * MAX_RANKED_HITS); without keywords it is `asc`. `asc`/`desc` order by URN and
 * continue after the last URN returned, reaching every hit.
 */
export type ScrollOrder = 'asc' | 'desc' | 'relevance';

/** Document attributes a page may be sorted on besides the URN: created, last written, the name (documents.ts). */
export const SORT_ATTRIBUTES = ['_ct', '_mt', '_nm'] as const;
export type SortAttribute = (typeof SORT_ATTRIBUTES)[number];

/** The document attribute of each sort key but the URN's, which is the keyset `_k`. */
export const SORT_ATTRIBUTE_OF: Readonly<Record<Exclude<SortKey, 'urn'>, SortAttribute>> = { created: '_ct', modified: '_mt', name: '_nm' };

export interface PageRequest {
  readonly count: number;
  readonly scrollId: string | null;
  readonly order: ScrollOrder;
  /**
   * With `asc` or `desc`: order on this attribute, ties by URN, paged by position
   * through the first MAX_RANKED_HITS hits (as relevance is); absent: by URN, keyset.
   */
  readonly sortBy?: SortAttribute | undefined;
}

export interface PageHit {
  readonly urn: string;
  /** The entity type name. */
  readonly type: string;
}

/**
 * A request sent to Meilisearch, exactly: it shows how a query was planned, and lets a
 * benchmark send the very same request straight to the engine as its baseline.
 */
export interface EngineRequest {
  readonly path: string;
  readonly body: unknown;
}

export interface Page {
  readonly hits: readonly PageHit[];
  /** Every hit, not only this page's. */
  readonly total: number;
  readonly nextScrollId: string | null;
  /** What was sent to the engine for this page. */
  readonly engineRequests: readonly EngineRequest[];
}

export interface FacetRequest {
  /** The name the caller used; the result is keyed by it. */
  readonly name: string;
  readonly field: ResolvedField;
}

export interface FacetValue {
  /** Numbers as decimal strings with a decimal part (`"60.0"`), other values as stored. */
  readonly value: string;
  readonly count: number;
}

/** Each facet's most frequent values, by the name asked, and what was sent to the engine for them. */
export interface FacetValues {
  readonly values: ReadonlyMap<string, readonly FacetValue[]>;
  readonly engineRequests: readonly EngineRequest[];
}
