/**
 * Runs durable jobs on the loop every background worker shares (consumerLoop.ts: start,
 * stop, nudge, back-off): each step claims one job with a lease, renews the lease while
 * it works, records progress, and retries a failed job with exponential back-off.
 * Several replicas may run workers against one database; SKIP LOCKED keeps them apart.
 *
 * Jobs are taken in the order of domain/jobKinds.ts (cleanups first, evaluations last),
 * and a running job whose progress report learns of a due job of an earlier rank yields
 * at its next step, handing itself back to resume after it.
 *
 * The lease is short (a replica that dies mid-job hands its job on within its
 * `leaseSeconds`, LEASE_SECONDS) and renewed on a timer as well as with each progress report, so a
 * single step that outlasts the lease (a slow Meilisearch task in a rebuild) does not
 * let a second worker start the same job beside it.
 *
 * When idle, it deletes jobs that ended more than the retention ago (JOB_RETENTION_DAYS).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../platform/logger.js';
import type { Db } from '../../store/database.js';
import { claimJob, completeJob, failJob, nextJobDueInMs, pruneJobs, recordProgress, releaseJob, type Job, type JobProgress, type WorkerRuns } from '../../store/jobs.js';
import { backoffMs, DEFAULT_LEASE_SECONDS } from '../../platform/time.js';
import { jobRuns } from '../../telemetry/metrics.js';
import { inSpan, SpanKind, tracing } from '../../telemetry/tracing.js';
import { AuditTrail } from '../audit.js';
import { SYSTEM_CALLER } from '../caller.js';
import { WorkLoop } from '../consumerLoop.js';

const MAX_ATTEMPTS = 20;
/** Before a failed job runs again: 2 s after its first attempt, doubling to about 4 minutes. */
const JOB_RETRY_BACKOFF = { baseMs: 2000, maxMs: 256_000 };
/** Ended jobs deleted per statement, and how often an idle worker looks for them. */
const PRUNE_BATCH = 1000;
const PRUNE_EVERY_MS = 60_000;

export interface JobContext {
  readonly job: Job;
  /** Records progress (counts, cursor, result, inputs left) and renews the lease; throws when the lease was lost. */
  progress(p: JobProgress): Promise<void>;
  /** Whether the job should stop at this step: the worker is stopping, or a job of an earlier rank waits. Long jobs return 'yield' and resume later. */
  readonly stopping: () => boolean;
}

export type JobHandler = (ctx: JobContext) => Promise<'done' | 'yield'>;

export class LeaseLostError extends Error {}

export interface WorkerOptions {
  readonly db: Db;
  readonly log: Logger;
  readonly pollMs?: number;
  /** How long a claimed job stays this worker's without a renewal (DEFAULT_LEASE_SECONDS); renewed three times as often. */
  readonly leaseSeconds?: number;
  /** The search index format of this version: jobs for another format are left to its own version. */
  readonly format: string;
  /** Jobs that ended longer ago than this are deleted (JOB_RETENTION_DAYS); absent: kept. */
  readonly retentionSeconds?: number;
  /** Called after a job's run with the job that ran (its kind, attempt) and how it ended: tests wait on it. */
  readonly onRun?: (job: Job, outcome: 'done' | 'yielded' | 'failed' | 'lease_lost') => void;
}

export class JobWorker extends WorkLoop {
  /** Not 'worker-…', the name of releases before 0.2.0, whose claims of kinds they cannot run the database skips (migration job_claims_by_kind). */
  private readonly id = `worker:${randomUUID()}`;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly audit: AuditTrail;
  private prunedAt = 0;

  private get leaseSeconds(): number {
    return this.options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  }

  constructor(private readonly options: WorkerOptions) {
    super({ log: options.log, name: 'job worker', pollMs: options.pollMs ?? 1000 });
    this.audit = new AuditTrail(options.log);
  }

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  private runs(): WorkerRuns {
    return { kinds: [...this.handlers.keys()], format: this.options.format };
  }

  protected override async step(): Promise<number> {
    const job = await claimJob(this.options.db, this.id, this.leaseSeconds, this.runs());
    if (!job) return 0;
    await (tracing() ? inSpan(`job ${job.kind}`, SpanKind.INTERNAL, { 'propgraph.job.id': String(job.id), 'propgraph.job.kind': job.kind }, () => this.run(job)) : this.run(job));
    return 1;
  }

  protected override failed(): void {}

  /** Until the next delayed job is due when that comes before the next poll (at least 20 ms: a due job another worker is claiming must not spin this loop). */
  protected override async idleMs(pollMs: number): Promise<number> {
    const due = await nextJobDueInMs(this.options.db, this.runs());
    return due === null ? pollMs : Math.min(pollMs, Math.max(due, 20) + 5);
  }

  protected override async idle(): Promise<void> {
    const retention = this.options.retentionSeconds;
    if (retention === undefined || Date.now() - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = Date.now();
    let pruned = 0;
    for (let n = PRUNE_BATCH; n === PRUNE_BATCH && this.workState.running; pruned += n) n = await pruneJobs(this.options.db, retention, PRUNE_BATCH);
    if (pruned > 0) this.options.log.info({ pruned, retentionSeconds: retention }, 'jobs that ended before the retention deleted');
  }

  private async run(job: Job): Promise<void> {
    const { db, log } = this.options;
    const handler = this.handlers.get(job.kind);
    const jobLog = log.child({ job: String(job.id), kind: job.kind });
    const runs = this.runs();
    let leaseLost = false;
    let outranked = false;
    const renew = async (p: JobProgress): Promise<boolean> => {
      const answer = await recordProgress(db, job.id, this.id, this.leaseSeconds, p, runs);
      if (!answer.held) leaseLost = true;
      if (answer.outranked) outranked = true;
      return answer.held;
    };
    // A failed renewal (database briefly away) is retried at the next tick; the lease outlives two misses.
    const renewal = setInterval(() => void renew({}).catch(() => undefined), (this.leaseSeconds * 1000) / 3);
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      const outcome = await handler({
        job,
        stopping: () => !this.workState.running || leaseLost || outranked,
        progress: async (p) => {
          if (leaseLost || !(await renew(p))) throw new LeaseLostError(`lease on job ${job.id} lost`);
        },
      });
      if (leaseLost) throw new LeaseLostError(`lease on job ${job.id} lost`);
      if (outcome === 'done') {
        await completeJob(db, job.id, this.id);
        this.recordEnd(job, 'done');
      } else {
        // Stopping mid-job, or a job of an earlier rank waits: hand it back without counting an attempt against it.
        await releaseJob(db, job.id, this.id);
        this.recordEnd(job, 'yielded', outranked && this.workState.running ? { yieldedTo: 'a job of an earlier rank' } : {});
      }
    } catch (err) {
      if (err instanceof LeaseLostError) {
        jobLog.warn('lease lost; another worker has the job');
        jobRuns.inc({ kind: job.kind, outcome: 'lease_lost' });
        this.options.onRun?.(job, 'lease_lost');
        return;
      }
      const retryIn = backoffMs(job.attempts, JOB_RETRY_BACKOFF) / 1000;
      const givenUp = job.attempts >= MAX_ATTEMPTS;
      jobLog.warn({ err: (err as Error).message, retryIn }, givenUp ? 'job failed; no attempts left' : 'job failed; will retry');
      await failJob(db, job.id, this.id, (err as Error).message, retryIn, MAX_ATTEMPTS).catch(() => undefined);
      this.recordEnd(job, 'failed', { error: (err as Error).message, retry: !givenUp });
    } finally {
      clearInterval(renewal);
    }
  }

  /** A run's end, counted and audited: the job's kind, what it worked on, and how it ended. */
  private recordEnd(job: Job, outcome: 'done' | 'yielded' | 'failed', detail: Record<string, string | boolean> = {}): void {
    jobRuns.inc({ kind: job.kind, outcome });
    const subject: Record<string, string> = {};
    for (const key of ['propertyUrn', 'reason']) if (typeof job.payload[key] === 'string') subject[key] = job.payload[key];
    this.audit.record({ action: 'job.run', actor: SYSTEM_CALLER.actor, target: `job ${job.id}`, outcome, detail: { kind: job.kind, attempt: job.attempts, ...subject, ...detail } });
    this.options.onRun?.(job, outcome);
  }
}
