/**
 * The settings every entity index gets. Structured property fields are filterable
 * through one attribute pattern (`sp.*`, Meilisearch >= 1.14), so a new property or
 * generation never needs a settings change or a reindex.
 */
import type { Settings } from 'meilisearch';

/** Facet values per field Meilisearch returns: the cap on maxAggValues (SPEC 6). */
export const MAX_FACET_VALUES = 1000;

export const INDEX_SETTINGS: Settings = {
  filterableAttributes: [
    {
      attributePatterns: ['id', 'urn', '_k', '_type', '_removed', 'name', 'platform', 'origin', 'sp.*'],
      features: { facetSearch: false, filter: { equality: true, comparison: true } },
    },
  ],
  // Scrolls are keyset cursors over `_k`; nothing else sorts.
  sortableAttributes: ['_k'],
  rankingRules: ['sort'],
  // Full-text search is out of scope (seed 4.10): nothing is tokenised for it.
  searchableAttributes: [],
  displayedAttributes: ['urn', '_k', '_type'],
  // Top values by count, up to the largest maxAggValues a caller may ask for.
  faceting: { maxValuesPerFacet: MAX_FACET_VALUES, sortFacetValuesBy: { '*': 'count' } },
  facetSearch: false,
  typoTolerance: { enabled: false },
  proximityPrecision: 'byAttribute',
  prefixSearch: 'disabled',
  // A cut-off search returns partial hits and counts without saying so; never cut.
  searchCutoffMs: 30_000,
};

/** Index uids allow letters, digits, `-` and `_`; entity type names are letters only. */
export function indexUid(prefix: string, entityType: string): string {
  return `${prefix}${entityType}`;
}
