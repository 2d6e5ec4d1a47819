/**
 * `propgraph system-update`: asks the server to rebuild its search indexes from the
 * database (SPEC 5) and follows the job until it ends.
 */
import type { CommandContext } from '../context.js';
import { ApiError, CliError, EXIT, type ExitCode } from '../errors.js';
import { RunProgress } from '../progress.js';
import { printLine } from '../terminal.js';

interface JobView {
  id?: unknown;
  status?: unknown;
  total?: unknown;
  done?: unknown;
  lastError?: unknown;
}

const POLL_MS = 500;

function jobIdOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as { id?: unknown; jobId?: unknown; job?: { id?: unknown } };
  const id = b.jobId ?? b.id ?? b.job?.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

export async function systemUpdate(ctx: CommandContext, options: { wait: boolean }): Promise<ExitCode> {
  const http = ctx.api().http;
  let started: unknown;
  try {
    started = await http.request('POST', http.v3('/system/update'));
  } catch (err) {
    if (err instanceof ApiError && err.isMissingRoute) {
      throw new CliError(`The server at ${http.settings.server} does not offer system-update (POST /openapi/v3/system/update answered 404); it may be older than this CLI.`);
    }
    throw err;
  }
  const id = jobIdOf(started);
  if (!id) throw new CliError(`The server accepted the system update but did not say which job runs it: ${JSON.stringify(started)}`);
  printLine(ctx.terminal.stdout, `System update started (job ${id}).`);
  if (!options.wait) return EXIT.ok;

  let progress: RunProgress | undefined;
  for (;;) {
    const job = await http.request<JobView>('GET', http.v3(`/jobs/${encodeURIComponent(id)}`));
    const total = typeof job.total === 'number' ? job.total : undefined;
    const done = typeof job.done === 'number' ? job.done : 0;
    if (total !== undefined) {
      progress ??= new RunProgress(ctx.terminal, Math.max(total, 2), 'reindexed');
      progress.step(done);
    }
    if (job.status === 'done') {
      progress?.clear();
      printLine(ctx.terminal.stdout, `System update finished (job ${id}${total !== undefined ? `, ${done} of ${total} entities reindexed` : ''}).`);
      return EXIT.ok;
    }
    if (job.status === 'failed') {
      progress?.clear();
      throw new CliError(`System update failed (job ${id})${typeof job.lastError === 'string' ? `: ${job.lastError}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
