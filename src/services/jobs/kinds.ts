/** Job kinds stored in the job table (defined in domain/, where write decisions name them). */
export { CLEANUP_PROPERTY_VALUES, REINDEX, SEARCH_INDEX_BUILD } from '../../domain/jobKinds.js';
