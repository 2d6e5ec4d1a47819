/**
 * `propgraph system-update`: asks the server to rebuild its search indexes from the
 * database (docs/contract.md §5) and follows the job until it ends (cli/rebuildJob.ts), with a
 * progress bar on a terminal.
 */
import type { CommandContext } from '../context.js';
import { EXIT, type ExitCode } from '../errors.js';
import { RunProgress } from '../progress.js';
import { followRebuild, startRebuild } from '../rebuildJob.js';
import { printLine } from '../terminal.js';

export async function systemUpdate(ctx: CommandContext, options: { wait: boolean }): Promise<ExitCode> {
  const http = ctx.api().http;
  const id = await startRebuild(http);
  printLine(ctx.terminal.stdout, `System update started (job ${id}).`);
  if (!options.wait) return EXIT.ok;

  let bar: RunProgress | undefined;
  let job;
  try {
    job = await followRebuild(http, id, {
      progress: ({ total, done }) => {
        if (total === null) return;
        bar ??= new RunProgress(ctx.terminal, Math.max(total, 2), 'reindexed');
        bar.step(done);
      },
    });
  } finally {
    bar?.clear();
  }
  printLine(ctx.terminal.stdout, `System update finished (job ${id}${job.total !== null ? `, ${job.done} of ${job.total} entities reindexed` : ''}).`);
  return EXIT.ok;
}
