/** Job kinds stored in the job table. */
export const CLEANUP_PROPERTY_VALUES = 'cleanup-property-values';
export const REINDEX = 'reindex';
/** Metadata tests evaluated over the entities they select (a changed test, or a run asked for). */
export const EVALUATE_TESTS = 'evaluate-tests';
/** A bulk edit of one property's values on the entities a search selected (issue #27). */
export const BULK_EDIT_VALUES = 'bulk-edit-values';
