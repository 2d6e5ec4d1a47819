/**
 * Runs durable jobs: claims one at a time with a lease, renews the lease while it
 * works, records progress, and retries failures with exponential back-off. Several
 * replicas may run workers against one database; SKIP LOCKED keeps them apart.
 *
 * The lease is short (a replica that dies mid-job hands its job on within its
 * `leaseSeconds`, LEASE_SECONDS) and renewed on a timer as well as with each progress report, so a
 * single step that outlasts the lease (a slow Meilisearch task in a rebuild) does not
 * let a second worker start the same job beside it.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../logger.js';
import type { Db } from '../../store/database.js';
import { claimJob, completeJob, failJob, heartbeat, nextJobDueInMs, releaseJob, saveJobResult, type Job } from '../../store/jobs.js';
import { backoffMs, DEFAULT_LEASE_SECONDS, WakeableSleep } from '../../time.js';
import { jobRuns } from '../../telemetry/metrics.js';
import { inSpan, SpanKind, tracing } from '../../telemetry/tracing.js';
import { AuditTrail } from '../audit.js';
import { SYSTEM_CALLER } from '../caller.js';
import type { WriteService } from '../writes/writeService.js';
import { cleanupBatch, remainingStaleValues, scrubHistoryBatch } from './cleanupPropertyValues.js';
import { CLEANUP_PROPERTY_VALUES } from './kinds.js';

/**
 * Holders cleaned per transaction by the hard delete's cleanup (and history pages scrubbed
 * after it): 1,000 cleaned 100,000 holders in 37 s, 200 in 55 s (BENCHMARKS.md, "Scale"),
 * with /health's p99 under 100 ms either way; each batch holds its entities' locks for a
 * few hundred milliseconds.
 */
const CLEANUP_BATCH = 1000;
const MAX_ATTEMPTS = 20;
/** Between attempts to claim a job while the database does not answer. */
const CLAIM_BACKOFF = { baseMs: 1000, maxMs: 30_000 };
/** Before a failed job runs again: 2 s after its first attempt, doubling to about 4 minutes. */
const JOB_RETRY_BACKOFF = { baseMs: 2000, maxMs: 256_000 };

export interface JobContext {
  readonly job: Job;
  /** Records progress and renews the lease; throws when the lease was lost. */
  progress(p: { total?: number; done?: number }): Promise<void>;
  /** Whether the worker is stopping: long jobs return early and resume later. */
  readonly stopping: () => boolean;
  /** Records what the job did so far (read back from `job.result` when it resumes); throws when the lease was lost. */
  saveResult(result: Record<string, unknown>): Promise<void>;
}

export type JobHandler = (ctx: JobContext) => Promise<'done' | 'yield'>;

export class LeaseLostError extends Error {}

export interface WorkerOptions {
  readonly db: Db;
  readonly log: Logger;
  /** The one write entry point, which the cleanup writes through. */
  readonly writes: WriteService;
  /** Called when a job wrote something (so the indexer can be nudged). */
  readonly onChanges?: () => void;
  readonly pollMs?: number;
  readonly batchSize?: number;
  /** How long a claimed job stays this worker's without a renewal (DEFAULT_LEASE_SECONDS); renewed three times as often. */
  readonly leaseSeconds?: number;
  /** The search index format of this version: jobs for another format are left to its own version. */
  readonly format: string;
}

export class JobWorker {
  /** Not 'worker-…', the name of releases before 0.2.0, whose claims of kinds they cannot run the database skips (migration job_claims_by_kind). */
  private readonly id = `worker:${randomUUID()}`;
  private readonly pause = new WakeableSleep();
  private running = false;
  private loopDone: Promise<void> | undefined;
  private readonly handlers = new Map<string, JobHandler>();

  private readonly audit: AuditTrail;

  private get leaseSeconds(): number {
    return this.options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  }

  constructor(private readonly options: WorkerOptions) {
    this.audit = new AuditTrail(options.log);
    this.handlers.set(CLEANUP_PROPERTY_VALUES, (ctx) => this.cleanup(ctx));
  }

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Asks the loop to look for work now instead of at the next poll. */
  nudge(): void {
    this.pause.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.nudge();
    await this.loopDone;
  }

  private async loop(): Promise<void> {
    const { log } = this.options;
    let failures = 0;
    while (this.running) {
      let job: Job | undefined;
      let idleMs = this.options.pollMs ?? 1000;
      const runs = { kinds: [...this.handlers.keys()], format: this.options.format };
      try {
        job = await claimJob(this.options.db, this.id, this.leaseSeconds, runs);
        // Nothing to run now: sleep until the next delayed job is due if that comes before the
        // next poll (at least 20 ms: a due job another worker is claiming must not spin this loop).
        const due = job ? null : await nextJobDueInMs(this.options.db, runs);
        if (due !== null) idleMs = Math.min(idleMs, Math.max(due, 20) + 5);
        failures = 0;
      } catch (err) {
        failures++;
        log.warn({ err: (err as Error).message }, 'could not claim a job; database unavailable?');
      }
      if (!job) {
        await this.pause.sleep(failures > 0 ? backoffMs(failures, CLAIM_BACKOFF) : idleMs);
        continue;
      }
      await (tracing() ? inSpan(`job ${job.kind}`, SpanKind.INTERNAL, { 'propgraph.job.id': String(job.id), 'propgraph.job.kind': job.kind }, () => this.run(job)) : this.run(job));
    }
  }

  private async run(job: Job): Promise<void> {
    const { db, log } = this.options;
    const handler = this.handlers.get(job.kind);
    const jobLog = log.child({ job: String(job.id), kind: job.kind });
    let leaseLost = false;
    const renew = (p: { total?: number; done?: number }) =>
      heartbeat(db, job.id, this.id, this.leaseSeconds, p).then((held) => {
        if (!held) leaseLost = true;
        return held;
      });
    // A failed renewal (database briefly away) is retried at the next tick; the lease outlives two misses.
    const renewal = setInterval(() => void renew({}).catch(() => undefined), (this.leaseSeconds * 1000) / 3);
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      const outcome = await handler({
        job,
        stopping: () => !this.running || leaseLost,
        progress: async (p) => {
          if (leaseLost || !(await renew(p))) throw new LeaseLostError(`lease on job ${job.id} lost`);
        },
        saveResult: async (result) => {
          if (leaseLost || !(await saveJobResult(db, job.id, this.id, result))) throw new LeaseLostError(`lease on job ${job.id} lost`);
        },
      });
      if (leaseLost) throw new LeaseLostError(`lease on job ${job.id} lost`);
      if (outcome === 'done') {
        await completeJob(db, job.id, this.id);
        this.ended(job, 'done');
      } else {
        // Stopping mid-job: hand it back without counting an attempt against it.
        await releaseJob(db, job.id, this.id);
        this.ended(job, 'yielded');
      }
    } catch (err) {
      if (err instanceof LeaseLostError) {
        jobLog.warn('lease lost; another worker has the job');
        jobRuns.inc({ kind: job.kind, outcome: 'lease_lost' });
        return;
      }
      const retryIn = backoffMs(job.attempts, JOB_RETRY_BACKOFF) / 1000;
      const givenUp = job.attempts >= MAX_ATTEMPTS;
      jobLog.warn({ err: (err as Error).message, retryIn }, givenUp ? 'job failed; no attempts left' : 'job failed; will retry');
      await failJob(db, job.id, this.id, (err as Error).message, retryIn, MAX_ATTEMPTS).catch(() => undefined);
      this.ended(job, 'failed', { error: (err as Error).message, retry: !givenUp });
    } finally {
      clearInterval(renewal);
    }
  }

  /** A run's end, counted and audited: the job's kind, what it worked on, and how it ended. */
  private ended(job: Job, outcome: 'done' | 'yielded' | 'failed', detail: Record<string, string | boolean> = {}): void {
    jobRuns.inc({ kind: job.kind, outcome });
    const subject: Record<string, string> = {};
    for (const key of ['propertyUrn', 'reason']) if (typeof job.payload[key] === 'string') subject[key] = job.payload[key];
    this.audit.record({ action: 'job.run', actor: SYSTEM_CALLER.actor, target: `job ${job.id}`, outcome, detail: { kind: job.kind, attempt: job.attempts, ...subject, ...detail } });
  }

  private async cleanup(ctx: JobContext): Promise<'done' | 'yield'> {
    const { db } = this.options;
    const propertyUrn = String(ctx.job.payload.propertyUrn);
    const total = ctx.job.total ?? (await remainingStaleValues(db, propertyUrn));
    let done = ctx.job.total === null ? 0 : ctx.job.done;
    await ctx.progress({ total, done });
    for (;;) {
      if (ctx.stopping()) return 'yield';
      const batch = await cleanupBatch(db, this.options.writes, propertyUrn, this.options.batchSize ?? CLEANUP_BATCH);
      if (batch.removed === 0) {
        if ((await this.scrubHistory(ctx, propertyUrn)) === 'yield') return 'yield';
        await ctx.progress({ total, done: total });
        return 'done';
      }
      done += batch.removed;
      if (batch.lastChange > 0n) this.options.onChanges?.();
      await ctx.progress({ total, done: Math.min(done, total) });
    }
  }

  /** The older versions written before the change that still name the property, page by page (a page is idempotent, so a restart simply goes on). */
  private async scrubHistory(ctx: JobContext, propertyUrn: string): Promise<'done' | 'yield'> {
    let from = '';
    for (;;) {
      if (ctx.stopping()) return 'yield';
      const page = await scrubHistoryBatch(this.options.db, propertyUrn, ctx.job.createdOn, from, this.options.batchSize ?? CLEANUP_BATCH);
      if (page.rewritten === 0) return 'done';
      from = page.nextUrn;
      await ctx.progress({});
    }
  }
}
