/**
 * Durable jobs. A job is claimed with FOR UPDATE SKIP LOCKED and a lease
 * (locked_until); a replica that dies mid-job lets its lease lapse and another
 * replica picks the job up. Failures are retried with back-off.
 *
 * One way in (enqueueJob: joining a waiting job of the same key, within the asker's
 * quota), one way to record how far a job got (recordProgress: lease, counts, cursor
 * and result, only while the lease is held), and listings that never read a payload.
 */
import { JOB_PRIORITY } from '../domain/jobKinds.js';
import { QuotaExceededError } from '../domain/errors.js';
import type { Queryable, Tx } from './database.js';
import type { JobModel } from './generated/prisma/models.js';
import { raw, sql, type Sql } from './sql.js';

export type JobStatus = 'pending' | 'running' | 'done' | 'failed';

/** A job as listings show it: what it is and how far it got, never its inputs. */
export interface JobSummary {
  readonly id: bigint;
  readonly kind: string;
  readonly status: JobStatus;
  /** The structured property the job works for (cleanups, bulk edits), when it names one. */
  readonly propertyUrn: string | null;
  /** The principal who asked for it; null for propgraph's own jobs. */
  readonly owner: string | null;
  readonly attempts: number;
  readonly total: number | null;
  readonly done: number;
  readonly lastError: string | null;
  /** The result's counts (numbers only), for jobs that report them; null otherwise. */
  readonly counts: Record<string, number> | null;
  readonly createdOn: Date;
  readonly finishedOn: Date | null;
}

export interface Job extends Omit<JobSummary, 'counts'> {
  readonly payload: Record<string, unknown>;
  /** What the job did, for jobs that report it (a bulk edit's counts and refusals); null otherwise. */
  readonly result: Record<string, unknown> | null;
  /** How far it got, as its handler recorded it; null before it recorded any. */
  readonly cursor: unknown;
}

type Row = Pick<JobModel, 'id' | 'kind' | 'payload' | 'status' | 'attempts' | 'total' | 'done' | 'lastError' | 'result' | 'createdOn' | 'finishedOn' | 'owner' | 'cursor'>;

/** The columns of Row, named as the model names them. */
const COLUMNS = raw(
  'id, kind, payload, status, attempts, total, done, last_error AS "lastError", result, created_on AS "createdOn", finished_on AS "finishedOn", owner, cursor',
);

/** A listing's columns: the counts out of the result, the property out of the payload, and nothing else of either. */
const SUMMARY_COLUMNS = raw(`id, kind, status, attempts, total, done, last_error AS "lastError", created_on AS "createdOn", finished_on AS "finishedOn", owner,
  payload->>'propertyUrn' AS "propertyUrn",
  (SELECT jsonb_object_agg(key, value) FROM jsonb_each(CASE WHEN jsonb_typeof(result) = 'object' THEN result ELSE '{}'::jsonb END) WHERE jsonb_typeof(value) = 'number') AS counts`);

function toJob(r: Row): Job {
  const payload = r.payload as Record<string, unknown>;
  return {
    ...r,
    payload,
    status: r.status as JobStatus,
    result: r.result as Record<string, unknown> | null,
    propertyUrn: typeof payload.propertyUrn === 'string' ? payload.propertyUrn : null,
  };
}

/** What to queue. */
export interface JobRequest {
  readonly kind: string;
  readonly payload: Record<string, unknown>;
  /** The principal who asked; null or absent: propgraph itself (no quota). */
  readonly owner?: string | null;
  /** At most this many unfinished jobs of `owner` (QuotaExceededError beyond). */
  readonly quota?: number;
  /** Due this many seconds from now; absent: at once. */
  readonly delaySeconds?: number;
  /** Join a job already queued under the same key instead of queuing another. */
  readonly coalesce?: Coalesce;
}

export interface Coalesce {
  readonly key: string;
  /** Which jobs a request joins: `waiting` ones (pending, never started) or any `unfinished` (pending or running). */
  readonly joins: 'waiting' | 'unfinished';
  /** Folds the request into the waiting job's payload; absent: the waiting job stays as it is. */
  readonly merge?: (waiting: Record<string, unknown>) => Record<string, unknown>;
  /** With merge: the job is due `delaySeconds` after this request, yet no later than this long after it was first queued. */
  readonly maxDelaySeconds?: number;
}

/**
 * Queues a job in the caller's transaction, so it exists iff the change that needs it
 * commits. With `coalesce`, a job of the same key that the request may join is joined
 * (and returned, `created: false`); an advisory lock on the key keeps two replicas asking
 * at once from both queuing. With `quota`, an owner who has that many unfinished jobs
 * is refused (429): the count is taken under a lock on the owner.
 */
export async function enqueueJob(tx: Tx, request: JobRequest): Promise<{ id: bigint; created: boolean }> {
  const delay = request.delaySeconds ?? 0;
  const { coalesce } = request;
  if (coalesce) {
    await tx.query(sql`SELECT 1 AS one FROM pg_advisory_xact_lock(hashtext(${`job:${coalesce.key}`}))`);
    const joinable = coalesce.joins === 'waiting' ? sql`status = 'pending' AND attempts = 0 AND cursor IS NULL` : sql`status IN ('pending', 'running')`;
    const rows = await tx.query<{ id: bigint; payload: Record<string, unknown> }>(sql`
      SELECT id, payload FROM job WHERE coalesce_key = ${coalesce.key} AND ${joinable} ORDER BY id LIMIT 1 FOR UPDATE`);
    const waiting = rows[0];
    if (waiting) {
      if (coalesce.merge) {
        const maxDelay = coalesce.maxDelaySeconds ?? delay;
        await tx.execute(sql`
          UPDATE job SET payload = ${JSON.stringify(coalesce.merge(waiting.payload))}::jsonb,
                         run_after = LEAST(created_on + make_interval(secs => ${maxDelay}), now() + make_interval(secs => ${delay}))
          WHERE id = ${waiting.id}`);
      }
      return { id: waiting.id, created: false };
    }
  }
  const owner = request.owner ?? null;
  if (owner !== null && request.quota !== undefined) {
    await tx.query(sql`SELECT 1 AS one FROM pg_advisory_xact_lock(hashtext(${`job-owner:${owner}`}))`);
    const [held] = await tx.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM job WHERE owner = ${owner} AND status IN ('pending', 'running')`);
    if (held!.n >= request.quota) {
      throw new QuotaExceededError(
        `${owner} has ${held!.n} jobs queued or running, as many as one principal may (${request.quota}); wait until one ends (GET /openapi/v3/jobs?status=pending) and ask again`,
      );
    }
  }
  const rows = await tx.query<Pick<JobModel, 'id'>>(sql`
    INSERT INTO job (kind, payload, owner, coalesce_key, run_after)
    VALUES (${request.kind}, ${JSON.stringify(request.payload)}::jsonb, ${owner}, ${coalesce?.key ?? null}, now() + make_interval(secs => ${delay}))
    RETURNING id`);
  return { id: rows[0]!.id, created: true };
}

/** What a worker runs: these kinds, for its search index format or for none. */
export interface WorkerRuns {
  readonly kinds: readonly string[];
  readonly format: string;
}

function runnableBy(runs: WorkerRuns): Sql {
  return sql`kind = ANY(${runs.kinds}::text[]) AND (payload->>'format' IS NULL OR payload->>'format' = ${runs.format})`;
}

/** A job's rank in the claim's order (domain/jobKinds.ts JOB_PRIORITY), 0 first; a kind not listed ranks as JOB_PRIORITY.other. */
function rank(kind: Sql): Sql {
  return sql`COALESCE((${JOB_PRIORITY.ranks}::int[])[array_position(${JOB_PRIORITY.kinds}::text[], ${kind})], ${JOB_PRIORITY.other}::int)`;
}

const DUE = sql`((status = 'pending' AND run_after <= now()) OR (status = 'running' AND locked_until < now()))`;

/**
 * Claims the first runnable job for `worker` in the order of JOB_PRIORITY, then of
 * queuing, leasing it for `leaseSeconds`: only of the kinds it runs, and only jobs for
 * its search index format or for none (versions side by side in a rolling upgrade leave
 * each other's jobs alone).
 */
export async function claimJob(db: Queryable, worker: string, leaseSeconds: number, runs: WorkerRuns): Promise<Job | undefined> {
  const rows = await db.query<Row>(sql`
    UPDATE job SET status = 'running', locked_by = ${worker},
                   locked_until = now() + make_interval(secs => ${leaseSeconds}), attempts = attempts + 1
    WHERE id = (
      SELECT id FROM job
      WHERE ${DUE} AND ${runnableBy(runs)}
      ORDER BY ${rank(raw('kind'))}, id
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

/** What a running job reports; every field is optional, absent ones stay as they were. */
export interface JobProgress {
  readonly total?: number;
  readonly done?: number;
  /** How far it got, for a resumed job to go on from. */
  readonly cursor?: unknown;
  /** What it did so far. */
  readonly result?: Record<string, unknown>;
  /** Inputs no longer needed, replacing the payload (a finished bulk edit keeps only what describes it). */
  readonly payload?: Record<string, unknown>;
}

export interface ProgressAnswer {
  /** False when the lease was lost to another worker (nothing was recorded). */
  readonly held: boolean;
  /** A due job this worker runs, of an earlier rank than this one, waits: the running job should yield. */
  readonly outranked: boolean;
}

/**
 * Renews the lease and records progress, only while `worker` holds the job; also says
 * whether a job of an earlier rank is waiting (the running job then yields at its next
 * step, and the worker takes that one first).
 */
export async function recordProgress(db: Queryable, id: bigint, worker: string, leaseSeconds: number, progress: JobProgress, runs: WorkerRuns): Promise<ProgressAnswer> {
  const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
  const rows = await db.query<{ kind: string }>(sql`
    UPDATE job SET locked_until = now() + make_interval(secs => ${leaseSeconds}),
                   total = COALESCE(${progress.total ?? null}::int, total),
                   done = COALESCE(${progress.done ?? null}::int, done),
                   cursor = COALESCE(${json(progress.cursor)}::jsonb, cursor),
                   result = COALESCE(${json(progress.result)}::jsonb, result),
                   payload = COALESCE(${json(progress.payload)}::jsonb, payload)
    WHERE id = ${id} AND locked_by = ${worker} AND status = 'running'
    RETURNING kind`);
  const kind = rows[0]?.kind;
  if (kind === undefined) return { held: false, outranked: false };
  const [waiting] = await db.query<{ outranked: boolean }>(sql`
    SELECT EXISTS (SELECT 1 FROM job WHERE ${DUE} AND id <> ${id} AND ${runnableBy(runs)} AND ${rank(raw('kind'))} < ${rank(sql`${kind}::text`)}) AS outranked`);
  return { held: true, outranked: waiting!.outranked };
}

export async function completeJob(db: Queryable, id: bigint, worker: string): Promise<void> {
  await db.execute(sql`
    UPDATE job SET status = 'done', finished_on = now(), locked_by = NULL, locked_until = NULL, last_error = NULL
    WHERE id = ${id} AND locked_by = ${worker}`);
}

/** Puts the job back with a delay, or marks it failed (and finished, for retention) after `maxAttempts`. */
export async function failJob(db: Queryable, id: bigint, worker: string, error: string, retryInSeconds: number, maxAttempts: number): Promise<void> {
  await db.execute(sql`
    UPDATE job SET status = CASE WHEN attempts >= ${maxAttempts} THEN 'failed' ELSE 'pending' END,
                   finished_on = CASE WHEN attempts >= ${maxAttempts} THEN now() ELSE NULL END,
                   run_after = now() + make_interval(secs => ${retryInSeconds}),
                   locked_by = NULL, locked_until = NULL, last_error = ${error.slice(0, 2000)}
    WHERE id = ${id} AND locked_by = ${worker}`);
}

/** Hands a claimed job back (its worker is stopping mid-job, or yields to an earlier rank): pending again, the attempt not counted. */
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
  /** Jobs whose payload names this property (cleanup jobs, bulk edits). */
  readonly propertyUrn?: string;
  readonly limit: number;
}

/** The newest jobs first, as summaries: the database reads no payload or result into the answer. */
export async function listJobs(db: Queryable, options: JobFilter): Promise<JobSummary[]> {
  const rows = await db.query<Omit<JobSummary, 'status'> & { status: string }>(sql`
    SELECT ${SUMMARY_COLUMNS} FROM job
    WHERE (${options.status ?? null}::text IS NULL OR status = ${options.status ?? null})
      AND (${options.kind ?? null}::text IS NULL OR kind = ${options.kind ?? null})
      AND (${options.propertyUrn ?? null}::text IS NULL OR payload->>'propertyUrn' = ${options.propertyUrn ?? null})
    ORDER BY id DESC LIMIT ${options.limit}`);
  return rows.map((r) => ({ ...r, status: r.status as JobStatus }));
}

/** Deletes up to `limit` jobs that ended (done or failed) more than `olderThanSeconds` ago; returns how many. */
export async function pruneJobs(db: Queryable, olderThanSeconds: number, limit: number): Promise<number> {
  return db.execute(sql`
    DELETE FROM job WHERE id IN (
      SELECT id FROM job WHERE status IN ('done', 'failed') AND finished_on < now() - make_interval(secs => ${olderThanSeconds})
      ORDER BY id LIMIT ${limit})`);
}

/**
 * Hard means gone (issue #46 item 14): after a property's values were dropped (a hard
 * delete, a breaking version change), no job queued no later than that change
 * (`changedBy`) keeps a value of it. A finished job working for the property (a bulk
 * edit, a migration) keeps what describes it, not its values, entities or selection; an
 * unfinished one is ended the same way when the property is `gone` (its worker finds its
 * lease gone), and left to run otherwise (its writes meet the current definition). Any
 * job's refusals that name the property (their reasons quote values) are dropped, their
 * counts kept. The cleanup jobs themselves hold no value and stay. Returns how many jobs
 * were rewritten.
 */
export async function scrubJobsOfProperty(db: Queryable, propertyUrn: string, changedBy: Date, gone: boolean, cleanupKind: string): Promise<number> {
  const reason = gone ? 'its structured property was hard deleted' : "its structured property's values were dropped by a breaking change";
  const working = await db.execute(sql`
    UPDATE job SET payload = (payload - 'values' - 'urns' - 'query' - 'orFilters' - 'rules') || jsonb_build_object('scrubbed', ${reason}::text),
                   result = CASE WHEN jsonb_typeof(result) = 'object' THEN result - 'refused' - 'examples' ELSE result END,
                   last_error = CASE WHEN status IN ('pending', 'running') THEN ${`ended: ${reason}`}::text ELSE last_error END,
                   finished_on = CASE WHEN status IN ('pending', 'running') THEN now() ELSE finished_on END,
                   status = CASE WHEN status IN ('pending', 'running') THEN 'failed' ELSE status END,
                   locked_by = NULL, locked_until = NULL
    WHERE payload->>'propertyUrn' = ${propertyUrn} AND kind <> ${cleanupKind} AND created_on <= ${changedBy}
      AND NOT (payload ? 'scrubbed') AND (${gone} OR status IN ('done', 'failed'))`);
  const naming = await db.execute(sql`
    UPDATE job SET result = result - 'refused' - 'examples'
    WHERE jsonb_typeof(result) = 'object' AND (result ? 'refused' OR result ? 'examples') AND created_on <= ${changedBy}
      AND strpos(result::text, ${propertyUrn}) > 0`);
  return working + naming;
}
