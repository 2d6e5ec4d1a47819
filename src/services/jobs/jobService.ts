/** Job status for operators: what is pending, running, done, and how far each got. */
import { PAGE_LIMITS, pageSize } from '../../domain/limits.js';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import type { Db } from '../../store/database.js';
import type { Caller } from '../caller.js';
import { getJob, listJobs, type Job, type JobStatus } from '../../store/jobs.js';

/** A job as operators read it (REST /jobs, the CLI): ids and times as JSON text. */
export interface JobView extends Omit<Job, 'id' | 'createdOn' | 'finishedOn'> {
  readonly id: string;
  /** Entities still to process, when known. */
  readonly remaining: number | null;
  readonly createdOn: string;
  readonly finishedOn: string | null;
}

function view(job: Job): JobView {
  return {
    id: String(job.id),
    kind: job.kind,
    payload: job.payload,
    status: job.status,
    attempts: job.attempts,
    total: job.total,
    done: job.done,
    remaining: job.total === null ? null : Math.max(0, job.total - job.done),
    lastError: job.lastError,
    result: job.result,
    createdOn: job.createdOn.toISOString(),
    finishedOn: job.finishedOn?.toISOString() ?? null,
  };
}

const STATUSES = new Set(['pending', 'running', 'done', 'failed']);

export interface JobService {
  /** Jobs matching the filters, at most `limit`. */
  /** The newest jobs first; `count` as every listing pages (domain/limits.ts pageSize). */
  list(caller: Caller, options: { status?: string; kind?: string; propertyUrn?: string; count?: number | null }): Promise<JobView[]>;
  /** One job; 404 when there is none. */
  get(caller: Caller, id: string): Promise<JobView>;
}

export class DefaultJobService implements JobService {
  constructor(private readonly deps: { db: Db }) {}

  async list(_caller: Caller, options: { status?: string; kind?: string; propertyUrn?: string; count?: number | null }): Promise<JobView[]> {
    if (options.status !== undefined && !STATUSES.has(options.status)) {
      throw new ValidationError('status must be one of pending, running, done, failed', 'status');
    }
    const filter = {
      ...(options.status ? { status: options.status as JobStatus } : {}),
      ...(options.kind ? { kind: options.kind } : {}),
      ...(options.propertyUrn ? { propertyUrn: options.propertyUrn } : {}),
      limit: pageSize(options.count, PAGE_LIMITS.jobsCount),
    };
    return (await listJobs(this.deps.db, filter)).map(view);
  }

  async get(_caller: Caller, id: string): Promise<JobView> {
    if (!/^\d{1,18}$/.test(id)) throw new NotFoundError(`Job ${id} does not exist`);
    const job = await getJob(this.deps.db, BigInt(id));
    if (!job) throw new NotFoundError(`Job ${id} does not exist`);
    return view(job);
  }
}
