/**
 * `propgraph tests evaluate --urn <urn> [--push]`: runs the metadata tests that
 * apply to one entity (seed 4.1, SPEC 7) and prints which pass and which fail.
 */
import { tryParseUrn } from '../../domain/urn.js';
import type { CommandContext } from '../context.js';
import { ApiError, CliError, EXIT, type ExitCode } from '../errors.js';
import type { HttpClient } from '../httpClient.js';
import { printLine } from '../terminal.js';

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
