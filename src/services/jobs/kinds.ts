/** Job kinds stored in the job table (defined in domain/, where write decisions name them). */
export { BULK_EDIT_VALUES, CLEANUP_PROPERTY_VALUES, EVALUATE_TESTS, MIGRATE_PROPERTY_VALUES, REINDEX, SEARCH_INDEX_BUILD } from '../../domain/jobKinds.js';
