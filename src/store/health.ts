/**
 * What /health reports of the database, read in one statement: that it answers, the
 * jobs by status, the changes not yet indexed, whether the search index format is
 * built. One round trip rather than five, so
 * that a server busy with a large batch answers /health after one turn of its event
 * loop instead of queueing once per fact behind the batch's work.
 */
import type { Queryable } from './database.js';
import type { JobStatus } from './jobs.js';

export interface DatabaseHealth {
  readonly jobs: Record<JobStatus, number>;
  /** Changes committed but not yet in the search index, counted up to PENDING_COUNTED. */
  readonly pending: number;
  /** Whether the asked index format is built; null when the database does not know it (or none was asked). */
  readonly indexBuilt: boolean | null;
}

/** Pending changes counted at most; more shows as this number. */
export const PENDING_COUNTED = 1_000;

export const HEALTH_TEXT =
  // Counted up to a bound: a backlog of a million changes (a full evaluation of metadata
  // tests, a bulk load) made every probe count them all. Counted from the newest change
  // down: the indexer marks the oldest first, and their entries stay in the pending index
  // until vacuum, so a count from the oldest up (or the bitmap scan the planner chose
  // without an order, which reads the whole index before its limit) walked 100,000 such
  // entries in each probe during a migration: 7 ms of the database's CPU, where from the
  // newest down the bound is reached in 0.5 ms (BENCHMARKS.md, "Migration of a property").
  `SELECT (SELECT count(*) FROM (SELECT 1 FROM change_log WHERE indexed_on IS NULL ORDER BY id DESC LIMIT ${PENDING_COUNTED}) p) AS pending,
    coalesce((SELECT json_object_agg(status, n) FROM (SELECT status, count(*) AS n FROM job GROUP BY status) s), '{}') AS jobs,
    (SELECT built_on IS NOT NULL FROM search_index_format WHERE format = $1) AS index_built`;

/** `indexFormat`: the search index format whose state to read (store/indexFormats.ts), if search is on. */
export async function databaseHealth(db: Queryable, indexFormat?: string): Promise<DatabaseHealth> {
  const statement = { name: 'health_state', text: HEALTH_TEXT, values: [indexFormat ?? null] };
  const row = (await db.query<{ pending: bigint; jobs: Partial<Record<JobStatus, number>>; index_built: boolean | null }>(statement))[0]!;
  return { pending: Number(row.pending), jobs: { pending: 0, running: 0, done: 0, failed: 0, ...row.jobs }, indexBuilt: row.index_built };
}

const APPLIED_MIGRATIONS = {
  name: 'applied_migrations',
  text: `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  values: [],
};

/**
 * Which of the migrations this build ships are not applied to the database; the query
 * failing means the database does not answer (the caller is not ready either way).
 */
export async function missingMigrations(db: Queryable, expected: readonly string[]): Promise<string[]> {
  const applied = new Set((await db.query<{ migration_name: string }>(APPLIED_MIGRATIONS)).map((r) => r.migration_name));
  return expected.filter((name) => !applied.has(name));
}
