/** Job kinds stored in the job table. */
export const CLEANUP_PROPERTY_VALUES = 'cleanup-property-values';
export const REINDEX = 'reindex';
