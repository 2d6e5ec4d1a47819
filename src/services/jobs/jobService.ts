/**
 * Job status for operators: what is pending, running, done, and how far each got.
 *
 * A listing carries no job's inputs or full result (issue #46 item 3: ten bulk edits'
 * payloads made one listing answer 106 MB): each listed job says what it is, whose it is,
 * how far it got and its result's counts. One job read by its id adds its inputs, as far
 * as it still keeps them, and its result.
 */
import { PAGE_LIMITS, pageSize } from '../../domain/limits.js';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import type { Db } from '../../store/database.js';
import type { Caller } from '../caller.js';
import { getJob, listJobs, type Job, type JobStatus, type JobSummary } from '../../store/jobs.js';

/** A job as listings show it (REST /jobs, GraphQL listJobs, the CLI): ids and times as JSON text. */
export interface JobListing {
  readonly id: string;
  readonly kind: string;
  readonly status: JobStatus;
  /** The structured property it works for (a cleanup, a bulk edit), when it names one. */
  readonly propertyUrn: string | null;
  /** Who asked for it; null for propgraph's own jobs. */
  readonly owner: string | null;
  readonly attempts: number;
  readonly total: number | null;
  readonly done: number;
  /** Entities still to process, when known. */
  readonly remaining: number | null;
  readonly lastError: string | null;
  /** Its result's counts so far (a bulk edit's changed, unchanged, refusedCount...); null when it reports none. */
  readonly counts: Readonly<Record<string, number>> | null;
  readonly createdOn: string;
  readonly finishedOn: string | null;
}

/** One job read by its id: the listing's fields, its inputs as far as it keeps them, and its whole result. */
export interface JobView extends JobListing {
  readonly payload: Record<string, unknown>;
  readonly result: Record<string, unknown> | null;
}

function listing(job: JobSummary | Job, counts: Record<string, number> | null): JobListing {
  return {
    id: String(job.id),
    kind: job.kind,
    status: job.status,
    propertyUrn: job.propertyUrn,
    owner: job.owner,
    attempts: job.attempts,
    total: job.total,
    done: job.done,
    remaining: job.total === null ? null : Math.max(0, job.total - job.done),
    lastError: job.lastError,
    counts,
    createdOn: job.createdOn.toISOString(),
    finishedOn: job.finishedOn?.toISOString() ?? null,
  };
}

function countsOf(result: Record<string, unknown> | null): Record<string, number> | null {
  if (!result) return null;
  const numbers = Object.entries(result).filter((e): e is [string, number] => typeof e[1] === 'number');
  return numbers.length > 0 ? Object.fromEntries(numbers) : null;
}

const STATUSES = new Set(['pending', 'running', 'done', 'failed']);

export interface JobListOptions {
  readonly status?: string;
  readonly kind?: string;
  readonly propertyUrn?: string;
  readonly count?: number | null;
}

export interface JobService {
  /** The newest jobs first, without their inputs; `count` as every listing pages (domain/limits.ts pageSize). */
  list(caller: Caller, options: JobListOptions): Promise<JobListing[]>;
  /** One job with its inputs and result; 404 when there is none. */
  get(caller: Caller, id: string): Promise<JobView>;
}

export class DefaultJobService implements JobService {
  constructor(private readonly deps: { db: Db }) {}

  async list(_caller: Caller, options: JobListOptions): Promise<JobListing[]> {
    if (options.status !== undefined && !STATUSES.has(options.status)) {
      throw new ValidationError('status must be one of pending, running, done, failed', 'status');
    }
    const filter = {
      ...(options.status ? { status: options.status as JobStatus } : {}),
      ...(options.kind ? { kind: options.kind } : {}),
      ...(options.propertyUrn ? { propertyUrn: options.propertyUrn } : {}),
      limit: pageSize(options.count, PAGE_LIMITS.jobsCount),
    };
    return (await listJobs(this.deps.db, filter)).map((j) => listing(j, j.counts && Object.keys(j.counts).length > 0 ? j.counts : null));
  }

  async get(_caller: Caller, id: string): Promise<JobView> {
    if (!/^\d{1,18}$/.test(id)) throw new NotFoundError(`Job ${id} does not exist`);
    const job = await getJob(this.deps.db, BigInt(id));
    if (!job) throw new NotFoundError(`Job ${id} does not exist`);
    return { ...listing(job, countsOf(job.result)), payload: job.payload, result: job.result };
  }
}
