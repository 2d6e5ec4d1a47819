/**
 * The browser session cookie (issue #41; docs/security.md, "Browser sessions"), the
 * reusable half of every browser sign-in. A session is an access token of kind
 * `session` (services/browserSessions.ts) whose secret travels only in this cookie:
 *
 *   propgraph_session=<secret>; Path=/; HttpOnly; SameSite=Strict[; Secure]
 *
 * - HttpOnly: no script, the console's or an injected one, can read it.
 * - No Max-Age: the browser forgets it when its session ends; the token's own expiry
 *   bounds it on the server.
 * - SameSite=Strict: no page or link of another site makes the browser send it.
 * - Path=/: every route, every tab of the browser.
 *
 * The authentication hook (authentication.ts) reads it when a request has no
 * Authorization header: cookie → secret → TokenService.authenticate → caller, exactly
 * as a bearer token. A request it authenticates that may change something must come
 * from a page of this server's own origin (`crossSiteRefusal`), on top of SameSite.
 * Another browser sign-in (DataHub's web app's routes, say) reuses this: issue a session
 * token, `startBrowserSession(reply, secret, ...)`, and every request after it from that
 * browser has a caller.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clearCookie, readCookie, setCookie } from './cookies.js';

export const SESSION_COOKIE = 'propgraph_session';

/** Methods that change nothing on this server (GraphQL mutations are refused over GET). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** A token secret is short; a longer cookie is not one of ours. */
const MAX_SECRET = 200;

/** The session secret the browser sent; undefined without one. */
export function sessionSecretOf(request: FastifyRequest): string | undefined {
  const value = readCookie(request, SESSION_COOKIE);
  return value && value.length <= MAX_SECRET ? value : undefined;
}

/** Whether the browser reached this server over TLS, directly or through a proxy that says so. */
export function cameOverTls(request: FastifyRequest): boolean {
  const forwarded = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  return request.protocol === 'https' || first === 'https';
}

export function startBrowserSession(reply: FastifyReply, secret: string, options: { secure: boolean }): void {
  setCookie(reply, SESSION_COOKIE, secret, { path: '/', sameSite: 'Strict', secure: options.secure });
}

export function endBrowserSession(reply: FastifyReply, options: { secure: boolean }): void {
  clearCookie(reply, SESSION_COOKIE, { path: '/', sameSite: 'Strict', secure: options.secure });
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Why a request authenticated by the session cookie is refused as one another site may
 * have made the browser send (cross-site request forgery); undefined when it may go on.
 * Requests that change nothing go on. Others must say they come from a page of this
 * origin: `Sec-Fetch-Site: same-origin`, which browsers set and no page can forge (not
 * `same-site`: a sibling subdomain is another origin); a browser that sends no Fetch
 * Metadata must send an `Origin` naming this host. No token to plant in pages, nothing
 * for a script to read (docs/decisions.md gives the choice). `unlabelled: 'allow'` lets
 * through a request that says nothing of where it came from, which no current browser
 * sends: for signing in, where a request from another site's page is what is refused
 * (it would sign the browser in as someone else), and a client that is not a browser may
 * ask.
 */
export function crossSiteRefusal(request: FastifyRequest, options: { unlabelled: 'refuse' | 'allow' } = { unlabelled: 'refuse' }): string | undefined {
  if (SAFE_METHODS.has(request.method)) return undefined;
  const fix = 'the session cookie authenticates only requests from this server\'s own pages; other clients send Authorization: Bearer <token>';
  const site = header(request, 'sec-fetch-site');
  if (site !== undefined) return site === 'same-origin' ? undefined : `Cross-site request refused (Sec-Fetch-Site: ${site.slice(0, 40)}): ${fix}`;
  const origin = header(request, 'origin');
  if (origin === undefined) {
    return options.unlabelled === 'allow' ? undefined : `Request refused: it carries the session cookie but neither Sec-Fetch-Site nor Origin says where it came from; ${fix}`;
  }
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  return host !== undefined && host === header(request, 'host') ? undefined : `Cross-site request refused (Origin: ${origin.slice(0, 200)}): ${fix}`;
}
