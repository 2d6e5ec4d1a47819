/**
 * `propgraph tests upsert|get|list|evaluate` (docs/contract.md §7): metadata tests written
 * from a YAML file and read through GraphQL; `evaluate` runs the tests that apply to one
 * entity and prints which pass and which fail.
 */
import { tryParseUrn } from '../../domain/urn.js';
import type { CommandContext } from '../context.js';
import { ApiError, CliError, EXIT, type ExitCode } from '../errors.js';
import { CliCreateTestDocument, CliTestDocument, CliTestListDocument, CliUpdateTestDocument } from '../generated/graphql.js';
import type { HttpClient } from '../httpClient.js';
import { RunProgress } from '../progress.js';
import { printTable } from '../table.js';
import { printLine } from '../terminal.js';
import { parseTestFile, testUrnOf } from '../files/testFile.js';
import { loadYamlFile } from '../files/yamlFile.js';

const LIST_PAGE = 1000;

export async function upsertTests(ctx: CommandContext, options: { file: string }): Promise<ExitCode> {
  const entries = parseTestFile(loadYamlFile(options.file));
  const graphql = ctx.graphql();
  const progress = new RunProgress(ctx.terminal, entries.length, 'written');
  for (const e of entries) {
    const input = { name: e.name, category: e.category, description: e.description ?? null, definition: { json: e.json } };
    try {
      const existing = await graphql.run(CliTestDocument, { urn: e.urn });
      if (existing.test) {
        await graphql.run(CliUpdateTestDocument, { urn: e.urn, input });
        progress.succeeded(`Updated test ${e.urn}`);
      } else {
        await graphql.run(CliCreateTestDocument, { input: { ...input, id: e.id } });
        progress.succeeded(`Created test ${e.urn}`);
      }
    } catch (err) {
      // Auth and connection failures end the run; a refused test is that entry's failure.
      if (!(err instanceof CliError) || err.exitCode !== EXIT.failed) throw err;
      progress.failedWith(`${options.file}: ${e.urn}: not written: ${err.message}`);
    }
  }
  progress.finish();
  return progress.counts.failed > 0 ? EXIT.failed : EXIT.ok;
}

/** The test as a file entry, so `tests get` output can be edited and upserted again. */
export async function getTest(ctx: CommandContext, input: string): Promise<ExitCode> {
  const urn = testUrnOf(input);
  const { test } = await ctx.graphql().run(CliTestDocument, { urn });
  if (!test) throw new CliError(`Test ${urn} does not exist`);
  let definition: unknown = test.definition.json;
  try {
    definition = JSON.parse(test.definition.json ?? '');
  } catch {
    // Stored tests always parse; shown as text should one not.
  }
  const out = { urn: test.urn, name: test.name, category: test.category, ...(test.description ? { description: test.description } : {}), definition };
  printLine(ctx.terminal.stdout, JSON.stringify(out, null, 2));
  return EXIT.ok;
}

export async function listTests(ctx: CommandContext, options: { json?: boolean }): Promise<ExitCode> {
  const graphql = ctx.graphql();
  const tests: Array<{ urn: string; name: string; category: string; description: string | null }> = [];
  for (let start = 0; ; start += LIST_PAGE) {
    const page = (await graphql.run(CliTestListDocument, { input: { start, count: LIST_PAGE } })).listTests;
    tests.push(...(page?.tests ?? []));
    if (!page || page.tests.length === 0 || tests.length >= page.total) break;
  }
  if (options.json) printLine(ctx.terminal.stdout, JSON.stringify(tests, null, 2));
  else printTable(ctx.terminal.stdout, undefined, tests.map((t) => [t.urn, t.name, `(${t.category})`]));
  return EXIT.ok;
}

interface TestResult {
  test: string;
  type?: string;
}

interface EvaluateAnswer {
  value?: { passing?: TestResult[]; failing?: TestResult[] };
}

/**
 * The evaluate route is `<base>/gms/test`; a server address configured without the
 * `/gms` suffix reaches it one level down.
 */
async function postEvaluate(http: HttpClient, body: unknown): Promise<EvaluateAnswer> {
  const server = http.settings.server;
  const paths = server.endsWith('/gms') ? ['/test'] : ['/test', '/gms/test'];
  for (const path of paths) {
    try {
      return await http.request<EvaluateAnswer>('POST', path, { query: { action: 'evaluate' }, json: body });
    } catch (err) {
      if (!(err instanceof ApiError && err.isMissingRoute)) throw err;
    }
  }
  const tried = paths.map((p) => `POST ${p}?action=evaluate`).join(', ');
  throw new CliError(`The server at ${server} does not offer test evaluation (${tried} answered 404); it may be older than this CLI.`);
}

export async function evaluateTests(ctx: CommandContext, options: { urn: string; push?: boolean; test?: string[]; json?: boolean }): Promise<ExitCode> {
  const parsed = tryParseUrn(options.urn);
  if (!parsed.ok) throw new CliError(`'${options.urn}' is not a valid urn: ${parsed.reason}`, EXIT.usage);
  const body = { urn: options.urn, push: Boolean(options.push), ...(options.test && options.test.length > 0 ? { testUrns: options.test } : {}) };
  const answer = await postEvaluate(ctx.api().http, body);
  const passing = answer.value?.passing ?? [];
  const failing = answer.value?.failing ?? [];
  const out = ctx.terminal.stdout;
  if (options.json) {
    printLine(out, JSON.stringify({ passing, failing }, null, 2));
    return EXIT.ok;
  }
  for (const t of passing) printLine(out, `PASS ${t.test}`);
  for (const t of failing) printLine(out, `FAIL ${t.test}`);
  printLine(out, `${passing.length} passing, ${failing.length} failing${options.push ? `; results stored on ${options.urn}` : ''}.`);
  return EXIT.ok;
}
