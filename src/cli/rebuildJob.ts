/**
 * The search-index rebuild as a client runs it (docs/contract.md §5): asks the server for its
 * reindex job and follows the job to its end. The one implementation behind both
 * `propgraph system-update` and `npm run system-update`; they differ only in how they
 * show progress.
 */
import type { JobView } from '../services/jobs/jobService.js';
import { sleep } from '../platform/time.js';
import { ApiError, CliError, EXIT } from './errors.js';
import type { HttpClient } from './httpClient.js';

/** How often the job is asked for its progress. */
const POLL_MS = 500;
/** The job is durable (a restarted server resumes it): stop following only after this long without an answer. */
const PATIENCE_MS = 60_000;

export type { JobView };

/** Asks the server to rebuild its search indexes; returns the id of the job that does it. */
export async function startRebuild(http: HttpClient): Promise<string> {
  let started: { jobId?: unknown };
  try {
    started = (await http.request<{ jobId?: unknown } | undefined>('POST', http.v3('/system/update'))) ?? {};
  } catch (err) {
    if (err instanceof ApiError && err.isMissingRoute) {
      throw new CliError(`The server at ${http.settings.server} does not offer system-update (POST /openapi/v3/system/update answered 404); it may be older than this client.`);
    }
    throw err;
  }
  if (typeof started.jobId !== 'string') throw new CliError(`The server accepted the system update but did not say which job runs it: ${JSON.stringify(started)}`);
  return started.jobId;
}

export interface RebuildObserver {
  /** Each answer about the job while it runs, and the last one. */
  progress(job: JobView): void;
  /** An attempt failed and the server will run the job again; called once per distinct error. */
  retrying?(lastError: string): void;
}

/**
 * Follows job `id` until it is done (returns it) or failed (throws a CliError with the
 * job's error). A server away or answering 5xx is waited out for a minute; then it gives up.
 */
export async function followRebuild(http: HttpClient, id: string, observer: RebuildObserver, what = 'System update'): Promise<JobView> {
  let failingSince: number | undefined;
  let lastRetryError: string | undefined;
  for (;;) {
    let job: JobView;
    try {
      job = await http.request<JobView>('GET', http.v3(`/jobs/${encodeURIComponent(id)}`));
      failingSince = undefined;
    } catch (err) {
      const transient = err instanceof ApiError ? err.status >= 500 : err instanceof CliError && err.exitCode === EXIT.unreachable;
      if (!transient) throw err;
      failingSince ??= Date.now();
      if (Date.now() - failingSince > PATIENCE_MS) throw new CliError(`Lost track of ${what.toLowerCase()} job ${id}: ${(err as Error).message}`, EXIT.unreachable);
      await sleep(POLL_MS);
      continue;
    }
    observer.progress(job);
    if (job.status === 'done') return job;
    if (job.status === 'failed') throw new CliError(`${what} failed (job ${id})${job.lastError ? `: ${job.lastError}` : ''}`);
    if (job.lastError && job.status === 'pending' && job.lastError !== lastRetryError) {
      lastRetryError = job.lastError;
      observer.retrying?.(job.lastError);
    }
    await sleep(POLL_MS);
  }
}
