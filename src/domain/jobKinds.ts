/** Job kinds stored in the job table. */
export const CLEANUP_PROPERTY_VALUES = 'cleanup-property-values';
export const REINDEX = 'reindex';
/** Metadata tests evaluated over the entities they select (a changed test, or a run asked for). */
export const EVALUATE_TESTS = 'evaluate-tests';
