/** Job kinds stored in the job table. */
export const CLEANUP_PROPERTY_VALUES = 'cleanup-property-values';
export const REINDEX = 'reindex';
/** A bulk edit of one property's values on the entities a search selected (issue #27). */
export const BULK_EDIT_VALUES = 'bulk-edit-values';
