/**
 * The HTTP transport for the Meilisearch client: node:http with keep-alive instead of
 * fetch: through fetch, every search whose response is more than a few hits paid a
 * constant TCP delayed-ACK stall that node:http does not (BENCHMARKS.md, "Figures that
 * explained code choices"). The client calls this with the URL and the
 * RequestInit it would give fetch and expects the parsed body back; an answer with an
 * error status is thrown as EngineAnswerError (the client wraps it, see engine.ts).
 */
import http from 'node:http';
import https from 'node:https';
import { MeilisearchRequestError } from 'meilisearch';
import { searchRequestDuration } from '../telemetry/metrics.js';
import { inSpan, inTrace, SpanKind } from '../telemetry/tracing.js';

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/** When each Meilisearch (by origin) last answered a request, whatever the answer. */
const lastAnswer = new Map<string, number>();

/** Whether the Meilisearch at `url` answered a request within the last `ms` (so it is up, without asking it again). */
export function answeredWithin(url: string, ms: number): boolean {
  const at = lastAnswer.get(new URL(url).origin);
  return at !== undefined && performance.now() - at <= ms;
}

/**
 * Meilisearch answered with an error status: the status, and the error code and message
 * its body gives. Our own class rather than the client's MeilisearchApiError, which is
 * built from a fetch Response this transport does not have (docs/decisions.md,
 * "Hand-written or a library").
 */
export class EngineAnswerError extends Error {
  constructor(
    readonly status: number,
    /** Meilisearch's error code (`index_not_found`, `invalid_search_filter`, ...), when its body names one. */
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'EngineAnswerError';
  }
}

/** The error an answer with a non-2xx status stands for. */
function answerError(status: number, statusMessage: string | undefined, body: unknown): EngineAnswerError {
  const named = (typeof body === 'object' && body !== null ? body : {}) as { code?: unknown; message?: unknown };
  const message = typeof named.message === 'string' ? named.message : `${status}: ${statusMessage ?? ''}`;
  return new EngineAnswerError(status, typeof named.code === 'string' ? named.code : undefined, message);
}

/**
 * Reads an answer to its end and settles with its parsed JSON body, or an
 * EngineAnswerError for a non-2xx status; a broken stream or unparsable body is
 * rejected through `wrap`.
 */
function readJsonAnswer(origin: string, response: http.IncomingMessage, resolve: (v: unknown) => void, reject: (e: unknown) => void, wrap: (err: unknown) => unknown): void {
  const chunks: Buffer[] = [];
  response.on('data', (c: Buffer) => chunks.push(c));
  response.on('error', (err) => reject(wrap(err)));
  response.on('end', () => {
    lastAnswer.set(origin, performance.now());
    let parsed: unknown;
    try {
      const text = Buffer.concat(chunks).toString('utf8');
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch (err) {
      reject(wrap(err));
      return;
    }
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) resolve(parsed);
    else reject(answerError(status, response.statusMessage, parsed));
  });
}

/** A request's operation label: its method and path with the index uid and task uid left out (a small fixed set). */
const operations = new Map<string, { operation: string }>();
const MAX_OPERATIONS = 200;

function operationOf(method: string, url: URL): { operation: string } {
  const key = `${method} ${url.pathname}`;
  let labels = operations.get(key);
  if (labels === undefined) {
    labels = { operation: `${method} ${url.pathname.replace(/\/indexes\/[^/]+/, '/indexes/{index}').replace(/\/tasks\/\d+/, '/tasks/{uid}')}` };
    if (operations.size < MAX_OPERATIONS) operations.set(key, labels);
  }
  return labels;
}

/**
 * A Meilisearch call, timed into propgraph_search_request_duration_seconds and, while
 * tracing is on, run in a client span.
 */
function observed<T>(method: string, url: URL, send: () => Promise<T>): Promise<T> {
  const labels = operationOf(method, url);
  const started = performance.now();
  const sent = inTrace()
    ? inSpan(`meilisearch ${labels.operation}`, SpanKind.CLIENT, { 'http.request.method': method, 'server.address': url.host, 'url.path': url.pathname }, () => send())
    : send();
  return sent.finally(() => searchRequestDuration.observe(labels, (performance.now() - started) / 1000));
}

export function nodeHttpClient(input: string | URL | Request, init: RequestInit = {}): Promise<unknown> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  return observed(init.method ?? 'GET', url, () => sendRequest(url, init));
}

function sendRequest(url: URL, init: RequestInit): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const body = init.body === undefined || init.body === null ? undefined : typeof init.body === 'string' ? init.body : undefined;
    if (init.body !== undefined && init.body !== null && body === undefined) {
      reject(new Error('nodeHttpClient sends only string bodies'));
      return;
    }
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      headers[key] = value;
    });
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const signal = init.signal ?? undefined;
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const request = transport.request(url, { method: init.method ?? 'GET', headers, agent: agents[url.protocol as 'http:' | 'https:'] }, (response) => {
      response.on('end', () => signal?.removeEventListener('abort', onAbort));
      readJsonAnswer(url.origin, response, resolve, reject, (err) => err);
    });
    const onAbort = () => {
      request.destroy();
      // The client recognises its own timeout by the abort reason.
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    request.end(body);
  });
}

/**
 * POSTs a JSON body and returns the parsed answer, for the search hot path. The
 * client's own path builds a Request, Headers and an AbortController per call; a CPU
 * profile of the search benchmark put that at a large share of propgraph's overhead
 * over a direct request (BENCHMARKS.md, "Figures that explained code choices"). Errors
 * take the same shapes as through the client (EngineAnswerError for an API answer,
 * MeilisearchRequestError otherwise) so engine.ts maps them the same way.
 */
export function postJson(url: string, apiKey: string | undefined, body: unknown, timeoutMs: number): Promise<unknown> {
  const target = new URL(url);
  return observed('POST', target, () => post(target, url, apiKey, body, timeoutMs));
}

function post(target: URL, url: string, apiKey: string | undefined, body: unknown, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const transport = target.protocol === 'https:' ? https : http;
    const request = transport.request(target, { method: 'POST', headers, agent: agents[target.protocol as 'http:' | 'https:'] }, (response) => {
      readJsonAnswer(target.origin, response, resolve, reject, (err) => new MeilisearchRequestError(url, err));
    });
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', (err) => reject(new MeilisearchRequestError(url, err)));
    request.end(payload);
  });
}
