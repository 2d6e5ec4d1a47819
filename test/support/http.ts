/**
 * Small HTTP helpers for tests: JSON in, status and parsed JSON (plus raw text) out.
 * Requests go through node:http with a keep-alive agent rather than fetch: the fault
 * suites send tens of thousands of them, and fetch took about five times the CPU per
 * request (0.5 ms against 0.09 ms, measured), CPU the servers under test then lacked.
 */
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { waitFor } from './waitFor.js';

// Idle connections are closed by the agent a second before the server's keep-alive
// timeout, as fetch does: Node's agent follows the `Keep-Alive: timeout` hint only when
// it has a timeout of its own (which closes idle sockets only: a request in flight is
// not cut short). At most 256 connections per server.
const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 60_000 });

/** One exchange over plain HTTP (every server under test): the status, the headers as fetch gives them, the body as text. Rejects as fetch does (`cause` names the socket error). */
function exchange(url: URL, method: string, headers: Record<string, string>, body: string | undefined): Promise<{ status: number; headers: Headers; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: body !== undefined ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => reject(new TypeError('fetch failed', { cause: err })));
      res.on('end', () => {
        const received = new Headers();
        const raw = res.rawHeaders;
        for (let i = 0; i < raw.length; i += 2) received.append(raw[i]!, raw[i + 1]!);
        resolve({ status: res.statusCode ?? 0, headers: received, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', (err) => reject(new TypeError('fetch failed', { cause: err })));
    req.end(body);
  });
}

export interface HttpResponse<T = any> {
  readonly status: number;
  readonly body: T;
  readonly text: string;
  readonly headers: Headers;
}

export async function http<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: {
    json?: unknown;
    body?: string;
    contentType?: string;
    headers?: Record<string, string>;
    query?: Record<string, string | string[]>;
    /** false: a write answered before the index caught up is not waited for (suites that never search what they wrote). */
    readYourWrites?: boolean;
  } = {},
): Promise<HttpResponse<T>> {
  const url = new URL(baseUrl + path);
  for (const [k, v] of Object.entries(options.query ?? {})) {
    for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, item);
  }
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  let body: string | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = options.contentType ?? 'application/json';
  } else if (options.contentType) headers['content-type'] = options.contentType;
  const res = await exchange(url, method.toUpperCase(), headers, body);
  const text = res.text;
  // A write the server answered before the search index caught up (docs/contract.md §12): on a loaded
  // machine INDEX_WAIT_MS can run out. Suites read their writes back, so they wait here.
  // A write made with a console session's cookie alone is not followed: /health, a public
  // path, identifies a caller by a bearer token only, so the change log is not shown to it.
  const named = (name: string) => Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  const cookieOnly = named('authorization') === undefined && named('cookie') !== undefined;
  if (res.headers.get('x-index-status') === 'pending' && options.query?.async !== 'true' && options.readYourWrites !== false && !cookieOnly) {
    await indexCaughtUp(baseUrl, undefined, named('authorization'));
  }
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed as T, text, headers: res.headers };
}

export const enc = encodeURIComponent;

/**
 * Waits until the server's change log has nothing left to index, as a client that
 * needs read-your-writes does after `X-Index-Status: pending`; returns at once while
 * search is unreachable or disabled (nothing will catch up), and fails after two minutes.
 */
export async function indexCaughtUp(baseUrl: string, timeoutMs = 120_000, authorization?: string): Promise<void> {
  const headers: Record<string, string> = authorization ? { authorization } : {};
  // A server that does not answer will not catch up: its error ends the wait at once
  // (waitFor would retry it until the deadline, e.g. after a suite stopped the server).
  let failure: unknown;
  await waitFor('the search index to catch up with the change log', timeoutMs, async () => {
    // /health shows the change log to a caller with a token only.
    const res = await http(baseUrl, 'GET', '/health', { headers }).catch((err: unknown) => {
      failure = err;
      return undefined;
    });
    if (!res) return true;
    // A server with authentication on shows only `status` to a caller without a token:
    // nothing to wait on, and the wait used to end at once (an upgrade suite searched an
    // index 1,000 datasets behind and failed, once in several runs).
    if (res.body && typeof res.body === 'object' && Object.keys(res.body).every((key) => key === 'status')) {
      failure = new Error(`GET /health at ${baseUrl} shows no components to this caller: authentication is on, so pass a token (indexCaughtUp's third argument)`);
      return true;
    }
    const health = res.body as { search?: { enabled?: boolean; reachable?: boolean }; changeLog?: { pending?: number } };
    return health.search?.enabled !== true || health.search.reachable !== true || health.changeLog?.pending === 0 ? true : undefined;
  }, 50);
  if (failure !== undefined) throw failure;
}

/** Whether nothing listens at the server's address any more: a connection is refused (a stopping server closes its listener first). */
export function refusesConnections(baseUrl: string): Promise<boolean> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}
