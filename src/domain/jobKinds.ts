/** Job kinds stored in the job table. */
export const CLEANUP_PROPERTY_VALUES = 'cleanup-property-values';
/** A rebuild of the search indexes queued by propgraph 0.1.0 (its jobs carry no format); run as SEARCH_INDEX_BUILD. */
export const REINDEX = 'reindex';
/**
 * A rebuild of one index format's indexes from the database (payload `format`): only a
 * version with that format runs it, and versions before 0.2.0 do not know the kind, so
 * during a rolling upgrade no version rebuilds another's indexes.
 */
export const SEARCH_INDEX_BUILD = 'search-index-build';
/** Metadata tests evaluated over the entities they select (a changed test, or a run asked for). */
export const EVALUATE_TESTS = 'evaluate-tests';
/** A bulk edit of one property's values on the entities a search selected (issue #27). */
export const BULK_EDIT_VALUES = 'bulk-edit-values';
/** A migration of one property's values: each entity still under the generation it migrates from, rewritten through the write path. */
export const MIGRATE_PROPERTY_VALUES = 'migrate-property-values';
