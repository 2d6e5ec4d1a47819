/**
 * Load for the fault suites: many concurrent clients whose requests never throw (a
 * refused connection or a timeout is an outcome like any status), writes retried until
 * the server acknowledges them, and a seeded random source so a failing run can be
 * replayed.
 */
import { http, type HttpResponse } from './http.js';

/** What one request came to: a status with its body, or no answer at all. */
export interface Outcome {
  /** HTTP status, or 0 when no response arrived (connection refused or reset, timeout). */
  readonly status: number;
  readonly body: any;
  readonly text: string;
  /** The transport error when status is 0. */
  readonly error?: string;
  readonly ms: number;
  readonly startedAt: number;
}

type HttpOptions = Parameters<typeof http>[3];

/**
 * One request whose failure is data: never throws, and gives up after `timeoutMs`
 * (status 0, error "timeout") so a hanging server shows up as such.
 *
 * Its answer is the server's, as it came: a write answered `X-Index-Status: pending` is
 * not followed by http()'s wait for the change log to empty, which under the load these
 * requests make need never come (a hard delete in twoReplicas, answered 200 after 5 s,
 * then "timed out" at 30 s in that wait). Scenarios check the index once their load stops.
 */
export async function attempt(base: string, method: string, path: string, options: HttpOptions = {}, timeoutMs = 30_000): Promise<Outcome> {
  options = { readYourWrites: false, ...options };
  const startedAt = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const res = await Promise.race([http(base, method, path, options), timeout]);
    if (res === 'timeout') return { status: 0, body: undefined, text: '', error: 'timeout', ms: Date.now() - startedAt, startedAt };
    return fromResponse(res, startedAt);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { status: 0, body: undefined, text: '', error: cause?.code ?? cause?.message ?? (err as Error).message, ms: Date.now() - startedAt, startedAt };
  } finally {
    clearTimeout(timer);
  }
}

function fromResponse(res: HttpResponse, startedAt: number): Outcome {
  return { status: res.status, body: res.body, text: res.text, ms: Date.now() - startedAt, startedAt };
}

/** Runs `n` clients at once; resolves when all are done, rejects with the first failure. */
export async function runClients(n: number, client: (index: number) => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: n }, (_, i) => client(i)));
}

/** Hands out work items to `concurrency` workers pulling from one queue. */
export async function drainQueue<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await runClients(concurrency, async () => {
    while (next < items.length) await work(items[next++]!);
  });
}

// One generator for the load tests and the CLI's demo catalogue.
export { seededRandom } from '../../src/cli/demo/seededRandom.js';

/** The seed from FAULT_SEED (to replay a run) or a fresh one; printed by the caller. */
export function faultSeed(): number {
  const given = process.env.FAULT_SEED;
  return given ? Number(given) : Math.floor(Math.random() * 2 ** 31);
}

/** Counts outcomes by status (no answer, and GraphQL errors by code, apart), for reports. */
export function statusCounts(outcomes: readonly Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) {
    const graphqlError = o.body?.errors?.[0]?.extensions?.code;
    const key = o.status === 0 ? `none(${o.error})` : graphqlError ? `${o.status} ${graphqlError}` : String(o.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
