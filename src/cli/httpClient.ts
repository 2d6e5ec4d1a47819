/**
 * The CLI's only way to the data: HTTP to a running server. Sends the bearer token
 * on every request, turns error answers into ApiError, and turns the failures a user
 * must act on (server down, token refused) into messages that say what to do.
 */
import { ApiError, CliError, EXIT } from './errors.js';
import type { CliSettings } from './configFile.js';

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface RequestOptions {
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly json?: unknown;
  /**
   * Return an error answer's body when it is JSON with an `errors` list (GraphQL answers
   * a query it refuses with 400 and such a body) instead of raising ApiError.
   */
  readonly acceptErrorBody?: boolean;
  /** More request headers (If-Version-Match). */
  readonly headers?: Readonly<Record<string, string>>;
}

const REQUEST_TIMEOUT_MS = 120_000;

/** Network-level failure codes worth naming; anything else is reported by its message. */
const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
};

function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code && NETWORK_REASONS[cause.code]) return NETWORK_REASONS[cause.code]!;
  if ((err as Error).name === 'TimeoutError') return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  return cause?.message ?? (err as Error).message;
}

export class HttpClient {
  constructor(
    readonly settings: CliSettings,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  /** A REST v3 route: `<server>/openapi/v3<path>`. */
  v3(path: string): string {
    return `/openapi/v3${path}`;
  }

  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(this.settings.server + path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value === undefined) continue;
      const list: readonly string[] = Array.isArray(value) ? value : [String(value)];
      for (const item of list) url.searchParams.append(key, item);
    }
    // The server records the interface each write came through: this one is the CLI.
    const headers: Record<string, string> = { ...options.headers, accept: 'application/json', 'x-propgraph-client': 'cli' };
    if (this.settings.token) headers.authorization = `Bearer ${this.settings.token}`;
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await this.send(url, { method, headers, ...(body !== undefined ? { body } : {}), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const route = `${method} ${url.pathname}`;
    if (response.ok) {
      if (text !== '' && parsed === undefined) {
        throw new CliError(`The server at ${this.settings.server} answered ${route} with something other than JSON; is this a propgraph server?`);
      }
      return parsed as T;
    }
    if (options.acceptErrorBody && Array.isArray((parsed as { errors?: unknown } | undefined)?.errors)) return parsed as T;
    throw this.failure(response.status, route, text, parsed);
  }

  /**
   * A GET whose answer is a file: the response, once its status is a success, for the
   * caller to read as a stream (no time limit on reading it). Errors as for request().
   */
  async download(path: string): Promise<Response> {
    const url = new URL(this.settings.server + path);
    const headers: Record<string, string> = {};
    if (this.settings.token) headers.authorization = `Bearer ${this.settings.token}`;
    const response = await this.send(url, { method: 'GET', headers });
    if (response.ok) return response;
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    throw this.failure(response.status, `GET ${url.pathname}`, text, parsed);
  }

  private async send(url: URL, init: RequestInit): Promise<Response> {
    try {
      return await this.fetchImpl(url, init);
    } catch (err) {
      throw new CliError(
        `Cannot reach the propgraph server at ${this.settings.server} (${networkReason(err)}). ` +
          'Is it running? Check the address with `propgraph init` or PROPGRAPH_SERVER.',
        EXIT.unreachable,
      );
    }
  }

  private failure(status: number, route: string, text: string, parsed: unknown): CliError {
    const errorBody = (parsed && typeof parsed === 'object' ? parsed : {}) as { error?: unknown; message?: unknown };
    const kind = typeof errorBody.error === 'string' ? errorBody.error : `HTTP ${status}`;
    const detail = typeof errorBody.message === 'string' ? errorBody.message : parsed === undefined && text ? text.slice(0, 200) : undefined;
    if (status === 401) {
      const hint = this.settings.token
        ? 'The access token was refused; configure a valid one'
        : 'No access token is configured';
      return new CliError(
        `The server at ${this.settings.server} refused the request: 401 Unauthorized${detail ? ` (${detail})` : ''}. ` +
          `${hint} with \`propgraph init --token <token>\` or PROPGRAPH_TOKEN.`,
        EXIT.auth,
      );
    }
    if (status === 403) {
      return new CliError(
        `The server at ${this.settings.server} refused ${route}: 403 Forbidden${detail ? ` (${detail})` : ''}. ` +
          'The access token lacks the permission for this command.',
        EXIT.auth,
      );
    }
    return new ApiError(status, kind, detail, route);
  }
}
