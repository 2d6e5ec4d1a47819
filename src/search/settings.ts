/**
 * The settings every entity index gets. Structured property fields are filterable
 * through one attribute pattern (`sp.*`, Meilisearch >= 1.14), so a new property or
 * generation never needs a settings change or a reindex.
 */
import type { Settings } from 'meilisearch';
import { KEY_FIELD_NAMES } from '../domain/searchFields.js';
import { keyAttribute } from './documents.js';
import { SORT_ATTRIBUTES } from './request.js';

/** Facet values per field Meilisearch returns: the cap on maxAggValues (docs/contract.md §6). */
export const MAX_FACET_VALUES = 1000;

/** Hits a keyword search ranks and pages through (Meilisearch's pagination.maxTotalHits). */
export const MAX_RANKED_HITS = 1000;

/** Keyword search looks in these, and ranks a match in an earlier one higher (docs/search.md, "Keyword search"). */
export const SEARCHABLE_ATTRIBUTES = ['name', 'displayName', 'qualifiedName', 'fieldPath', 'description', 'urn'];

export const INDEX_SETTINGS: Settings = {
  filterableAttributes: [
    {
      // Every key field of domain/searchFields.ts (the aspect modules declare theirs): a new search field is a
      // declaration there, not a setting here. Sorted, so that the index format (indexFormat.ts) follows the
      // fields, not the order the modules happen to be listed in.
      // The document id is not filterable: URN equality filters on `_k` (compileFilter.ts).
      attributePatterns: [...new Set(['_k', '_nw', ...KEY_FIELD_NAMES.map(keyAttribute), 'sp.*'])].sort(),
      features: { facetSearch: false, filter: { equality: true, comparison: true } },
    },
  ],
  // Scrolls without keywords are keyset cursors over `_k`; a sort on a time or the name
  // (searchSort.ts) orders by one of the others, ties by `_k`.
  sortableAttributes: ['_k', ...SORT_ATTRIBUTES],
  // A query that sorts (by `_k`: every URN-ordered scroll) is in exactly that order, keywords
  // or not; a keyword query that does not sort is ranked by relevance (docs/search.md).
  rankingRules: ['sort', 'words', 'typo', 'proximity', 'attribute', 'exactness'],
  searchableAttributes: SEARCHABLE_ATTRIBUTES,
  // The sort keys come back so that the pages of several indexes merge in their order.
  displayedAttributes: ['urn', '_k', '_type', ...SORT_ATTRIBUTES],
  // Top values by count, up to the largest maxAggValues a caller may ask for.
  faceting: { maxValuesPerFacet: MAX_FACET_VALUES, sortFacetValuesBy: { '*': 'count' } },
  facetSearch: false,
  pagination: { maxTotalHits: MAX_RANKED_HITS },
  typoTolerance: { enabled: true, disableOnAttributes: ['urn'] },
  proximityPrecision: 'byAttribute',
  prefixSearch: 'disabled',
  // A cut-off search returns partial hits and counts without saying so; never cut.
  searchCutoffMs: 30_000,
};

/**
 * Index uids allow letters, digits, `-` and `_`; entity type names are letters only.
 * `format` (indexFormat.ts) keeps each index format's indexes apart.
 */
export function indexUid(prefix: string, entityType: string, format: string): string {
  return `${prefix}${entityType}_f${format}`;
}
