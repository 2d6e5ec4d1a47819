/**
 * Replays DataHub's Python client (test/fixtures/datahub-client, format in its
 * README.md) against a running propgraph: every step's request is sent exactly as the
 * client writes it (path, headers and body byte for byte, through node:http so nothing
 * is re-encoded), and the answer is checked with the step's `expect`, as the client
 * would parse it. A flow passes when every non-optional step does.
 *
 * Pure apart from the HTTP it sends: the server it replays against is started by
 * replayServer.ts, so the unit tests of the paths and checks here load no server.
 */
import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, inflateSync } from 'node:zlib';
import { isDeepStrictEqual } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
export const CLIENT_FIXTURES_DIR = path.resolve(here, '../fixtures/datahub-client');

export interface Check {
  readonly path: string;
  readonly equals?: unknown;
  readonly exists?: boolean;
  readonly type?: 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';
  readonly oneOf?: readonly unknown[];
  readonly matches?: string;
  readonly includes?: unknown;
  readonly excludes?: unknown;
  readonly length?: number;
  readonly keysEqual?: readonly string[];
  readonly absentOk?: boolean;
  readonly why?: string;
}

interface Capture {
  readonly name: string;
  readonly header?: string;
  readonly path?: string;
  readonly regex?: string;
}

export interface ReplayStep {
  readonly id: string;
  readonly invocation: string;
  readonly optional?: boolean;
  readonly unorderedGroup?: string;
  readonly request: {
    readonly method: string;
    readonly path: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string | null;
  };
  readonly expect: {
    readonly status: readonly number[];
    readonly headers?: ReadonlyArray<{ name: string; matches: string }>;
    readonly checks?: readonly Check[];
    readonly capture?: readonly Capture[];
    readonly retry?: { while: readonly Check[]; maxAttempts: number; delayMs: number };
  };
}

export interface ClientFixture {
  readonly name: string;
  readonly title: string;
  readonly server: { readonly env: Readonly<Record<string, string>> };
  readonly invocations: ReadonlyArray<{ id: string; base: string }>;
  readonly steps: readonly ReplayStep[];
}

export function loadClientFixture(name: string): ClientFixture {
  return JSON.parse(readFileSync(path.join(CLIENT_FIXTURES_DIR, `${name}.json`), 'utf8')) as ClientFixture;
}

// ---------------------------------------------------------------- JSONPath subset

type Segment = { key: string } | { index: number } | { all: true };

function parsePath(text: string): Segment[] {
  if (!text.startsWith('$')) throw new Error(`fixture path ${text} does not start with $`);
  const segments: Segment[] = [];
  let rest = text.slice(1);
  while (rest.length > 0) {
    let m: RegExpExecArray | null;
    if ((m = /^\.([A-Za-z0-9_]+)/.exec(rest))) segments.push({ key: m[1]! });
    else if ((m = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest))) segments.push({ key: JSON.parse(m[1]!) as string });
    else if ((m = /^\[(\d+)\]/.exec(rest))) segments.push({ index: Number(m[1]) });
    else if ((m = /^\[\*\]/.exec(rest))) segments.push({ all: true });
    else throw new Error(`fixture path ${text}: cannot read ${rest}`);
    rest = rest.slice(m[0].length);
  }
  return segments;
}

/** Every value the path points at (zero or one without `[*]`). */
export function select(value: unknown, pathText: string): unknown[] {
  let current: unknown[] = [value];
  for (const segment of parsePath(pathText)) {
    const next: unknown[] = [];
    for (const v of current) {
      if ('all' in segment) {
        if (Array.isArray(v)) next.push(...v);
      } else if ('index' in segment) {
        if (Array.isArray(v) && segment.index < v.length) next.push(v[segment.index]);
      } else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, segment.key)) {
        next.push((v as Record<string, unknown>)[segment.key]);
      }
    }
    current = next;
  }
  return current;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Deep equality: object key order ignored, array order kept; JSON numbers compare by value already. */
const same = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a, b);

const show = (v: unknown): string => {
  const text = JSON.stringify(v);
  return text === undefined ? 'undefined' : text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

/** Why the check fails on `body`, or undefined when it holds. */
export function checkProblem(body: unknown, check: Check): string | undefined {
  const found = select(body, check.path);
  const where = check.path;
  if (check.exists !== undefined) {
    const exists = found.length > 0;
    return exists === check.exists ? undefined : `${where}: expected ${check.exists ? 'a value' : 'nothing'}, found ${exists ? show(found) : 'nothing'}`;
  }
  if (check.excludes !== undefined) {
    return found.some((v) => same(v, check.excludes)) ? `${where}: must not include ${show(check.excludes)}, found ${show(found)}` : undefined;
  }
  if (found.length === 0) return check.absentOk ? undefined : `${where}: points at nothing`;
  const every = (test: (v: unknown) => boolean, expected: string): string | undefined => {
    const bad = found.filter((v) => !test(v));
    return bad.length === 0 ? undefined : `${where}: expected ${expected}, found ${show(found.length === 1 ? found[0] : found)}`;
  };
  if ('equals' in check) return every((v) => same(v, check.equals), show(check.equals));
  if (check.type !== undefined) return every((v) => typeOf(v) === check.type, `type ${check.type}`);
  if (check.oneOf !== undefined) return every((v) => check.oneOf!.some((o) => same(v, o)), `one of ${show(check.oneOf)}`);
  if (check.matches !== undefined) return every((v) => typeof v === 'string' && new RegExp(check.matches!).test(v), `a string matching /${check.matches}/`);
  if (check.includes !== undefined) {
    return found.some((v) => same(v, check.includes)) ? undefined : `${where}: expected to include ${show(check.includes)}, found ${show(found)}`;
  }
  if (check.length !== undefined) return every((v) => Array.isArray(v) && v.length === check.length, `an array of length ${check.length}`);
  if (check.keysEqual !== undefined) {
    const want = [...check.keysEqual].sort();
    return every((v) => typeOf(v) === 'object' && same(Object.keys(v as object).sort(), want), `an object with exactly the keys ${show(want)}`);
  }
  throw new Error(`fixture check on ${where} names no operator`);
}

// ---------------------------------------------------------------- sending

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}

/** Sends a request with the path and body untouched; decodes gzip/deflate answers as `requests` would. */
export function sendRaw(baseUrl: string, method: string, rawPath: string, headers: Readonly<Record<string, string>>, body: string | null): Promise<RawResponse> {
  const base = new URL(baseUrl);
  const payload = body === null ? undefined : Buffer.from(body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method,
        path: rawPath,
        headers: { ...headers, 'Accept-Encoding': 'gzip, deflate', ...(payload ? { 'Content-Length': String(payload.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          let raw = Buffer.concat(chunks);
          const encoding = res.headers['content-encoding'];
          if (encoding === 'gzip') raw = gunzipSync(raw);
          else if (encoding === 'deflate') raw = inflateSync(raw);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: raw.toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** `${name}` replaced from the variables; an undefined name is a fixture error. */
export function substitute(text: string, variables: Readonly<Record<string, string>>): string {
  return text.replace(/\$\{([^}]*)\}/g, (_m, name: string) => {
    const value = variables[name];
    if (value === undefined) throw new Error(`fixture uses \${${name}}, which is not defined at this step`);
    return value;
  });
}

// ---------------------------------------------------------------- replay

export interface StepOutcome {
  readonly id: string;
  readonly optional: boolean;
  readonly status: number;
  readonly problems: readonly string[];
}

export interface FlowOutcome {
  readonly name: string;
  /** HTTP requests sent, retries included. */
  readonly requests: number;
  readonly steps: readonly StepOutcome[];
  /** Failed non-optional steps: id and what differs. */
  readonly failures: readonly string[];
  /** Failed optional steps, reported but not failing the flow. */
  readonly optionalFailures: readonly string[];
}

export interface ReplayOptions {
  readonly token: string;
  /** Put before every path that does not already carry it, e.g. `/gms` (README: "replay any other file under /gms"). */
  readonly prefix?: string;
  /** Stop at the first failed required step (later steps build on it). Default true. */
  readonly stopAtFailure?: boolean;
}

function parseBody(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: text === '' ? undefined : JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function headerValue(headers: RawResponse['headers'], name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

function judge(step: ReplayStep, res: RawResponse): string[] {
  const problems: string[] = [];
  const body = parseBody(res.text);
  const answer = `answer ${res.status}: ${res.text.slice(0, 500)}`;
  if (!step.expect.status.includes(res.status)) {
    problems.push(`status ${res.status}, expected ${step.expect.status.join(' or ')}; ${answer}`);
    return problems;
  }
  for (const h of step.expect.headers ?? []) {
    const value = headerValue(res.headers, h.name);
    if (value === undefined || !new RegExp(h.matches).test(value)) problems.push(`header ${h.name}: expected /${h.matches}/, found ${show(value)}`);
  }
  const checks = step.expect.checks ?? [];
  if (checks.length > 0) {
    if (!body.ok) problems.push(`the body is not JSON; ${answer}`);
    else for (const check of checks) {
      const problem = checkProblem(body.value, check);
      if (problem) problems.push(problem);
    }
    if (problems.length > 0) problems.push(answer);
  }
  return problems;
}

function pathWithPrefix(rawPath: string, prefix: string | undefined): string {
  if (!prefix || rawPath.startsWith(`${prefix}/`)) return rawPath;
  return `${prefix}${rawPath}`;
}

/** How often a step with `retry` is asked again (at most its delayMs). */
const RETRY_POLL_MS = 100;

export async function replayFlow(baseUrl: string, fixture: ClientFixture, options: ReplayOptions): Promise<FlowOutcome> {
  const variables: Record<string, string> = { token: options.token };
  const steps: StepOutcome[] = [];
  const failures: string[] = [];
  const optionalFailures: string[] = [];
  let requests = 0;
  for (const step of fixture.steps) {
    const r = step.request;
    const send = async (): Promise<RawResponse> => {
      requests++;
      const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, substitute(v, variables)]));
      return sendRaw(baseUrl, r.method, pathWithPrefix(substitute(r.path, variables), options.prefix), headers, r.body === null ? null : substitute(r.body, variables));
    };
    let res = await send();
    const retry = step.expect.retry;
    // As long as the client would keep asking (maxAttempts, delayMs apart), but asked again
    // sooner: the first answer that ends the wait is judged, not one a client's pause later.
    const until = retry ? Date.now() + (retry.maxAttempts - 1) * retry.delayMs : 0;
    while (retry && Date.now() < until) {
      const body = parseBody(res.text);
      const again = body.ok && retry.while.some((check) => checkProblem(body.value, check) === undefined);
      if (!again) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(retry.delayMs, RETRY_POLL_MS)));
      res = await send();
    }
    const problems = judge(step, res);
    if (problems.length === 0) {
      const body = parseBody(res.text);
      for (const c of step.expect.capture ?? []) {
        const raw = c.header !== undefined ? headerValue(res.headers, c.header) : body.ok ? select(body.value, c.path!)[0] : undefined;
        const text = raw === undefined ? undefined : typeof raw === 'string' ? raw : JSON.stringify(raw);
        const value = text !== undefined && c.regex ? new RegExp(c.regex).exec(text)?.[1] : text;
        if (value === undefined) problems.push(`capture ${c.name}: nothing to capture`);
        else variables[c.name] = value;
      }
    }
    const optional = step.optional === true;
    steps.push({ id: step.id, optional, status: res.status, problems });
    if (problems.length === 0) continue;
    const line = `${step.id} (${r.method} ${pathWithPrefix(r.path, options.prefix)}):\n    ${problems.join('\n    ')}`;
    if (optional) optionalFailures.push(line);
    else {
      failures.push(line);
      if (options.stopAtFailure !== false) break;
    }
  }
  return { name: fixture.name, requests, steps, failures, optionalFailures };
}

/**
 * Every urn a flow names in its requests (decoded from paths, and from the bodies'
 * `entityUrn` and `urn` fields), for cleaning up after a flow that failed midway: the
 * flows share one server and clean up after themselves only when they get that far.
 */
export function urnsOfFlow(fixture: ClientFixture): string[] {
  const urns = new Set<string>();
  const fromValue = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(fromValue);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if ((k === 'urn' || k === 'entityUrn') && typeof x === 'string' && x.startsWith('urn:li:')) urns.add(x);
        else fromValue(x);
      }
    }
  };
  for (const step of fixture.steps) {
    const m = /^(?:\/gms)?\/(?:aspects|entitiesV2)\/([^?/]+)/.exec(step.request.path);
    if (m) urns.add(decodeURIComponent(m[1]!));
    if (step.request.body !== null) {
      const body = parseBody(step.request.body);
      if (body.ok) fromValue(body.value);
    }
  }
  return [...urns].filter((u) => !u.startsWith('urn:li:telemetry:'));
}

/** The summary line printed after a replay: flows, steps and requests. */
export function replaySummary(outcomes: readonly FlowOutcome[]): string {
  const passed = outcomes.filter((o) => o.failures.length === 0).length;
  const requests = outcomes.reduce((n, o) => n + o.requests, 0);
  const steps = outcomes.reduce((n, o) => n + o.steps.length, 0);
  return `DataHub client replay: ${requests} requests replayed (${steps} steps) in ${outcomes.length} flows; ${passed} of ${outcomes.length} flows went through every step`;
}
