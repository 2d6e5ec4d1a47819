/**
 * Durable jobs. A job is claimed with FOR UPDATE SKIP LOCKED and a lease
 * (locked_until); a replica that dies mid-job lets its lease lapse and another
 * replica picks the job up. Failures are retried with back-off.
 */
import type { Queryable, Tx } from './database.js';
import type { JobModel } from './generated/prisma/models.js';
import { raw, sql, type Sql } from './sql.js';

export type JobStatus = 'pending' | 'running' | 'done' | 'failed';

export interface Job {
  readonly id: bigint;
  readonly kind: string;
  readonly payload: Record<string, unknown>;
  readonly status: JobStatus;
  readonly attempts: number;
  readonly total: number | null;
  readonly done: number;
  readonly lastError: string | null;
  /** What the job did, for jobs that report it (a bulk edit's counts and refusals); null otherwise. */
  readonly result: Record<string, unknown> | null;
  readonly createdOn: Date;
  readonly finishedOn: Date | null;
}

type Row = Pick<JobModel, 'id' | 'kind' | 'payload' | 'status' | 'attempts' | 'total' | 'done' | 'lastError' | 'result' | 'createdOn' | 'finishedOn'>;

/** The columns of Row, named as the model names them. */
const COLUMNS = raw('id, kind, payload, status, attempts, total, done, last_error AS "lastError", result, created_on AS "createdOn", finished_on AS "finishedOn"');

function toJob(r: Row): Job {
  return { ...r, payload: r.payload as Record<string, unknown>, status: r.status as JobStatus, result: r.result as Record<string, unknown> | null };
}

/** Enqueues a job in the caller's transaction, so it exists iff the change that needs it commits. */
export async function enqueueJob(tx: Tx, kind: string, payload: Record<string, unknown>): Promise<bigint> {
  const rows = await tx.query<Pick<JobModel, 'id'>>(sql`
    INSERT INTO job (kind, payload) VALUES (${kind}, ${JSON.stringify(payload)}::jsonb) RETURNING id`);
  return rows[0]!.id;
}

/** What a worker runs: these kinds, for its search index format or for none. */
export interface WorkerRuns {
  readonly kinds: readonly string[];
  readonly format: string;
}

function runnableBy(runs: WorkerRuns): Sql {
  return sql`kind = ANY(${runs.kinds}::text[]) AND (payload->>'format' IS NULL OR payload->>'format' = ${runs.format})`;
}

/**
 * Claims the oldest runnable job for `worker`, leasing it for `leaseSeconds`: only of
 * the kinds it runs, and only jobs for its search index format or for none (versions
 * side by side in a rolling upgrade leave each other's jobs alone).
 */
export async function claimJob(db: Queryable, worker: string, leaseSeconds: number, runs: WorkerRuns): Promise<Job | undefined> {
  const rows = await db.query<Row>(sql`
    UPDATE job SET status = 'running', locked_by = ${worker},
                   locked_until = now() + make_interval(secs => ${leaseSeconds}), attempts = attempts + 1
    WHERE id = (
      SELECT id FROM job
      WHERE ((status = 'pending' AND run_after <= now()) OR (status = 'running' AND locked_until < now()))
        AND ${runnableBy(runs)}
      ORDER BY id
      FOR UPDATE SKIP LOCKED
      LIMIT 1
    )
    RETURNING ${COLUMNS}`);
  return rows[0] ? toJob(rows[0]) : undefined;
}

/**
 * Milliseconds until the earliest pending job `claimJob` would take becomes due (0 when
 * one is due already), or null when none is pending: an idle worker sleeps until then
 * rather than a whole poll, so a job queued with a delay (a changed test's evaluation)
 * starts when it is due.
 */
export async function nextJobDueInMs(db: Queryable, runs: WorkerRuns): Promise<number | null> {
  const rows = await db.query<{ ms: number | null }>(sql`
    SELECT (EXTRACT(EPOCH FROM min(run_after) - now()) * 1000)::float8 AS ms FROM job
    WHERE status = 'pending' AND ${runnableBy(runs)}`);
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Math.max(0, Math.ceil(ms));
}

/** Extends the lease and records progress; false when the lease was lost to another worker. */
export async function heartbeat(db: Queryable, id: bigint, worker: string, leaseSeconds: number, progress: { total?: number; done?: number }): Promise<boolean> {
  const n = await db.execute(sql`
    UPDATE job SET locked_until = now() + make_interval(secs => ${leaseSeconds}),
                   total = COALESCE(${progress.total ?? null}::int, total),
                   done = COALESCE(${progress.done ?? null}::int, done)
    WHERE id = ${id} AND locked_by = ${worker} AND status = 'running'`);
  return n > 0;
}

/** Records what the job did so far (its lease must be held): a resumed job reads it back. */
export async function saveJobResult(db: Queryable, id: bigint, worker: string, result: Record<string, unknown>): Promise<boolean> {
  const n = await db.execute(sql`
    UPDATE job SET result = ${JSON.stringify(result)}::jsonb WHERE id = ${id} AND locked_by = ${worker} AND status = 'running'`);
  return n > 0;
}

export async function completeJob(db: Queryable, id: bigint, worker: string): Promise<void> {
  await db.execute(sql`
    UPDATE job SET status = 'done', finished_on = now(), locked_by = NULL, locked_until = NULL, last_error = NULL
    WHERE id = ${id} AND locked_by = ${worker}`);
}

/** Puts the job back with a delay, or marks it failed after `maxAttempts`. */
export async function failJob(db: Queryable, id: bigint, worker: string, error: string, retryInSeconds: number, maxAttempts: number): Promise<void> {
  await db.execute(sql`
    UPDATE job SET status = CASE WHEN attempts >= ${maxAttempts} THEN 'failed' ELSE 'pending' END,
                   run_after = now() + make_interval(secs => ${retryInSeconds}),
                   locked_by = NULL, locked_until = NULL, last_error = ${error.slice(0, 2000)}
    WHERE id = ${id} AND locked_by = ${worker}`);
}

/** Hands a claimed job back (its worker is stopping mid-job, to resume later): pending again, the attempt not counted. */
export async function releaseJob(db: Queryable, id: bigint, worker: string): Promise<void> {
  await db.execute(sql`UPDATE job SET status = 'pending', locked_by = NULL, locked_until = NULL, attempts = attempts - 1 WHERE id = ${id} AND locked_by = ${worker}`);
}

export async function getJob(db: Queryable, id: bigint): Promise<Job | undefined> {
  const rows = await db.query<Row>(sql`SELECT ${COLUMNS} FROM job WHERE id = ${id}`);
  return rows[0] ? toJob(rows[0]) : undefined;
}

export interface JobFilter {
  readonly status?: JobStatus;
  readonly kind?: string;
  /** Jobs whose payload names this property (cleanup jobs). */
  readonly propertyUrn?: string;
  readonly limit: number;
}

export async function listJobs(db: Queryable, options: JobFilter): Promise<Job[]> {
  const rows = await db.query<Row>(sql`
    SELECT ${COLUMNS} FROM job
    WHERE (${options.status ?? null}::text IS NULL OR status = ${options.status ?? null})
      AND (${options.kind ?? null}::text IS NULL OR kind = ${options.kind ?? null})
      AND (${options.propertyUrn ?? null}::text IS NULL OR payload->>'propertyUrn' = ${options.propertyUrn ?? null})
    ORDER BY id DESC LIMIT ${options.limit}`);
  return rows.map(toJob);
}

/**
 * Enqueues a job of `kind` unless one is already pending or running; an advisory lock
 * keeps two replicas asking at once from both enqueueing. Returns the job's id.
 */
export async function enqueueSingletonJob(tx: Tx, kind: string, payload: Record<string, unknown>): Promise<{ id: bigint; created: boolean }> {
  // One per kind, and per search index format for jobs that name one.
  const format = typeof payload.format === 'string' ? payload.format : null;
  await tx.query(sql`SELECT 1 AS one FROM pg_advisory_xact_lock(hashtext(${`job:${kind}:${format ?? ''}`}))`);
  const rows = await tx.query<Pick<JobModel, 'id'>>(sql`
    SELECT id FROM job WHERE kind = ${kind} AND status IN ('pending', 'running')
      AND (${format}::text IS NULL OR payload->>'format' = ${format}) ORDER BY id LIMIT 1`);
  if (rows[0]) return { id: rows[0].id, created: false };
  return { id: await enqueueJob(tx, kind, payload), created: true };
}
