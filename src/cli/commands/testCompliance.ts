/**
 * `propgraph tests report [--urn <test>] [--days n] [--json]` and `propgraph tests run`
 * (docs/metadata-tests.md, "The compliance report"): the report as a table (a line per
 * test; with --urn, the trend and the first failing entities too) or as JSON; a run of
 * tests over the catalog, followed to its end with a progress bar on a terminal.
 */
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { CliRunTestsDocument, CliTestReportDocument, type CliTestReportQuery } from '../generated/graphql.js';
import { RunProgress } from '../progress.js';
import { followRebuild } from '../rebuildJob.js';
import { printTable } from '../table.js';
import { printLine } from '../terminal.js';
import { testUrnOf } from '../files/testFile.js';

/** Failing entities listed under a one-test report. */
const FAILING_SHOWN = 20;

type Compliance = CliTestReportQuery['testReport']['tests'][number];

function percent(part: number, whole: number): string {
  return whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`;
}

function daysOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 366) throw new CliError(`--days must be a whole number from 1 to 366, got '${raw}'`, EXIT.usage);
  return n;
}

export async function reportTests(ctx: CommandContext, options: { urn?: string; days?: string; json?: boolean }): Promise<ExitCode> {
  const urn = options.urn ? testUrnOf(options.urn) : undefined;
  const days = daysOf(options.days);
  const { testReport } = await ctx.graphql().run(CliTestReportDocument, {
    input: { ...(urn ? { urn } : {}), ...(days ? { days } : {}) },
    failing: { count: urn ? FAILING_SHOWN : 0 },
  });
  const out = ctx.terminal.stdout;
  if (options.json) {
    const tests = testReport.tests.map(({ failingEntities, ...t }) => ({
      ...t,
      ...(urn ? { failingEntities: { total: failingEntities.total, first: failingEntities.entities.map((e) => e.urn) } } : {}),
    }));
    printLine(out, JSON.stringify({ generatedAt: testReport.generatedAt, tests }, null, 2));
    return EXIT.ok;
  }
  if (testReport.tests.length === 0) {
    printLine(out, 'No metadata tests.');
    return EXIT.ok;
  }
  printTable(
    out,
    ['TEST', 'PASSING', 'FAILING', 'N/A', 'PASS RATE', 'URN'],
    testReport.tests.map((t) => [t.test.name, String(t.passing), String(t.failing), String(t.notApplicable), percent(t.passing, t.passing + t.failing), t.test.urn]),
  );
  if (urn) printOneTest(ctx, testReport.tests[0]!);
  return EXIT.ok;
}

function printOneTest(ctx: CommandContext, t: Compliance): void {
  const out = ctx.terminal.stdout;
  printLine(out, '');
  printLine(out, 'Trend (UTC):');
  printTable(out, ['DAY', 'PASSING', 'FAILING', 'N/A'], t.trend.map((p) => [p.day, String(p.passing), String(p.failing), String(p.notApplicable)]));
  printLine(out, '');
  const failing = t.failingEntities;
  if (failing.total === 0) {
    printLine(out, 'No entity fails this test.');
    return;
  }
  printLine(out, `Failing (${failing.entities.length} of ${failing.total}${failing.total > failing.entities.length ? `; the rest: propgraph search --filter failingTests=${t.test.urn}` : ''}):`);
  for (const e of failing.entities) printLine(out, `  ${e.urn}`);
}

export async function runTests(ctx: CommandContext, options: { test?: string[]; query?: string; type?: string[]; wait: boolean }): Promise<ExitCode> {
  const testUrns = options.test?.map(testUrnOf);
  if (options.type && !options.query) throw new CliError('--type narrows --query; give --query too', EXIT.usage);
  const { runTests: job } = await ctx.graphql().run(CliRunTestsDocument, {
    input: { ...(testUrns ? { testUrns } : {}), ...(options.query ? { query: options.query } : {}), ...(options.type ? { types: options.type } : {}) },
  });
  const out = ctx.terminal.stdout;
  printLine(out, `Test run started (job ${job.id}).`);
  if (!options.wait) return EXIT.ok;
  let bar: RunProgress | undefined;
  let done;
  try {
    done = await followRebuild(ctx.api().http, job.id, {
      progress: ({ total, done: so }) => {
        if (total === null) return;
        bar ??= new RunProgress(ctx.terminal, Math.max(total, 2), 'evaluated');
        bar.step(so);
      },
    }, 'Test run');
  } finally {
    bar?.clear();
  }
  printLine(out, `Test run finished (job ${job.id}, ${done.done} entities evaluated).`);
  return EXIT.ok;
}
