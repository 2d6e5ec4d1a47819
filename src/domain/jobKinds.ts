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

/**
 * The order a worker takes due jobs in, first to last: a hard delete's cleanup (values
 * readers already lost must not wait behind anyone's batch work), the search index
 * builds, bulk edits and migrations, then metadata-test evaluations. A kind not listed runs with the
 * bulk edits. A running job is asked to stop at its next step when one of an earlier
 * rank is due (issue #46 item 6: a cleanup waited 90 s behind a thousand evaluations).
 */
const JOB_RANKS: ReadonlyArray<readonly [string, number]> = [
  [CLEANUP_PROPERTY_VALUES, 0],
  [SEARCH_INDEX_BUILD, 1],
  [REINDEX, 1],
  [BULK_EDIT_VALUES, 2],
  [MIGRATE_PROPERTY_VALUES, 2],
  [EVALUATE_TESTS, 3],
];
export const DEFAULT_JOB_RANK = 2;

/** The kinds ranked, and their ranks (0 first), for the claim's order. */
export const JOB_PRIORITY = { kinds: JOB_RANKS.map(([k]) => k), ranks: JOB_RANKS.map(([, r]) => r), other: DEFAULT_JOB_RANK } as const;

export function jobRank(kind: string): number {
  return JOB_RANKS.find(([k]) => k === kind)?.[1] ?? DEFAULT_JOB_RANK;
}

/** A rebuild of one index format's indexes: one at a time per format (asked for while one is queued or running, that one answers). */
export function indexBuildRequest(reason: string, format: string) {
  return { kind: SEARCH_INDEX_BUILD, payload: { reason, format }, coalesce: { key: `${SEARCH_INDEX_BUILD}:${format}`, joins: 'unfinished' as const } };
}
