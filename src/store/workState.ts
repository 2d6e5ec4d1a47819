/**
 * What the change log and the job table hold, for /metrics: how far the search index
 * is behind the change log, and the jobs by kind and status. One named statement,
 * every part of it answered from an index (the change log's primary key
 * and its index of pending rows), the id sequence, or the small job table.
 *
 * The position is the highest id in the log; once the indexer has pruned every row (a
 * catalog left alone for a day), the id sequence still says how far the log got, so
 * the position never falls back to 0 as though nothing had been written.
 */
import type { Queryable } from './database.js';
import type { JobStatus } from './jobs.js';

export interface WorkState {
  /** The highest change-log id written (0 before the first change). */
  readonly changeLogPosition: number;
  /** The id up to which every change is indexed. */
  readonly indexedPosition: number;
  /** Changes not yet indexed. */
  readonly pendingChanges: number;
  /** Age of the oldest of them, in seconds (0 when none). */
  readonly oldestPendingSeconds: number;
  readonly jobs: ReadonlyArray<{ readonly kind: string; readonly status: JobStatus; readonly count: number; readonly remaining: number }>;
}

const WORK_STATE = {
  name: 'work_state',
  text: `SELECT coalesce((SELECT max(id) FROM change_log), pg_sequence_last_value(pg_get_serial_sequence('change_log', 'id')::regclass))::text AS head,
    (SELECT min(id) FROM change_log WHERE indexed_on IS NULL)::text AS oldest_pending,
    (SELECT count(*) FROM change_log WHERE indexed_on IS NULL)::text AS pending,
    (SELECT extract(epoch FROM now() - min(created_on)) FROM change_log WHERE indexed_on IS NULL)::float8 AS lag_seconds,
    coalesce((SELECT json_agg(j) FROM (
      SELECT kind, status, count(*)::int AS count,
        coalesce(sum(greatest(total - done, 0)) FILTER (WHERE status IN ('pending', 'running')), 0)::int AS remaining
      FROM job GROUP BY kind, status) j), '[]') AS jobs`,
  values: [],
};

export async function workState(db: Queryable): Promise<WorkState> {
  const row = (await db.query<{ head: string | null; oldest_pending: string | null; pending: string; lag_seconds: number | null; jobs: WorkState['jobs'] }>(WORK_STATE))[0]!;
  const head = Number(row.head ?? 0);
  return {
    changeLogPosition: head,
    indexedPosition: row.oldest_pending === null ? head : Number(row.oldest_pending) - 1,
    pendingChanges: Number(row.pending),
    oldestPendingSeconds: Math.max(0, row.lag_seconds ?? 0),
    jobs: row.jobs,
  };
}
