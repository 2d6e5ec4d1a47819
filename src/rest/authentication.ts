/**
 * The one authentication hook in front of REST, GraphQL and the evaluate route
 * (docs/contract.md §10): `Authorization: Bearer <token>`, or without that header the
 * browser session cookie (browserSession.ts), is checked on every route except the
 * public ones, and the caller it establishes reaches every service call, where the
 * authorization wrappers check its scope. A missing or bad credential is 401 (on the
 * GraphQL routes as a GraphQL error with code UNAUTHENTICATED); a cookie-authenticated
 * request that may change something and does not come from this origin's pages is 403.
 *
 * Failed authentications count against the client's address (authFailures.ts). Past
 * the limit, failures are answered 429, but a good token still works (issue #46, item
 * 11: a person signing in after someone else's flood from their address): it is looked
 * up, sharing one statement at a time with the other throttled lookups, so a flood of
 * bad tokens costs the database a query per round, not per request. The rate limit runs
 * after this hook, keyed on the caller established here.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../domain/accessToken.js';
import type { TokenService } from '../services/tokenService.js';
import { AuthFailureThrottle } from './authFailures.js';
import { cameOverTls, crossSiteRefusal, endBrowserSession, sessionSecretOf } from './browserSession.js';
import { LOCAL_CALLER } from './caller.js';
import { CLIENT_HEADER, interfaceOf } from './writeInterface.js';
import type { Credential } from './caller.js';

export interface AuthenticationOptions {
  readonly enabled: boolean;
  readonly tokens: TokenService;
  /** Paths (without query) served without a token, e.g. /health. */
  readonly publicPaths: (path: string) => boolean;
  /** Public paths that answer more to a caller with a valid token (/health): a token sent there is checked, a bad one ignored. */
  readonly identifiedOnPublicPaths: (path: string) => boolean;
  /** Paths whose errors must be GraphQL-shaped. */
  readonly graphqlPaths: readonly string[];
  /** Failed authentications one client address may make per minute. */
  readonly failuresPerMinute: number;
}

function deny(reply: FastifyReply, path: string, options: AuthenticationOptions, message: string): FastifyReply {
  reply.header('www-authenticate', 'Bearer');
  if (options.graphqlPaths.includes(path)) {
    return reply.code(401).type('application/json').send({ errors: [{ message, extensions: { code: 'UNAUTHENTICATED' } }] });
  }
  return reply.code(401).type('application/json').send({ error: 'Unauthorized', message });
}

function forbid(reply: FastifyReply, path: string, options: AuthenticationOptions, message: string): FastifyReply {
  if (options.graphqlPaths.includes(path)) {
    return reply.code(403).type('application/json').send({ errors: [{ message, extensions: { code: 'FORBIDDEN' } }] });
  }
  return reply.code(403).type('application/json').send({ error: 'Forbidden', message });
}

function throttled(reply: FastifyReply, path: string, options: AuthenticationOptions, retryAfterMs: number): FastifyReply {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const message = `Too many failed authentications from this address (limit ${options.failuresPerMinute} per minute); retry in ${seconds} s`;
  reply.header('retry-after', String(seconds));
  if (options.graphqlPaths.includes(path)) {
    return reply.code(429).type('application/json').send({ errors: [{ message, extensions: { code: 'RATE_LIMITED' } }] });
  }
  return reply.code(429).type('application/json').send({ error: 'Too Many Requests', message });
}

/** The credential a request presents: the Authorization header when it has one, else the session cookie. */
function credentialOf(request: FastifyRequest): { kind: Credential; header: string | undefined; secret: string | undefined } {
  const header = request.headers.authorization;
  if (header !== undefined) return { kind: 'bearer', header, secret: bearerToken(header) };
  const secret = sessionSecretOf(request);
  return secret ? { kind: 'cookie', header, secret } : { kind: 'none', header, secret: undefined };
}

export function installAuthentication(app: FastifyInstance, options: AuthenticationOptions): void {
  const failures = new AuthFailureThrottle(options.failuresPerMinute);
  app.decorateRequest('caller', null as never);
  app.decorateRequest('credential', 'none');
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    const via = interfaceOf(path, request.headers[CLIENT_HEADER], options.graphqlPaths);
    if (!options.enabled) {
      request.caller = { ...LOCAL_CALLER, via, request: { id: request.id } };
      return;
    }
    const credential = credentialOf(request);
    const { secret } = credential;
    const wait = failures.retryAfterMs(request.ip);
    if (options.publicPaths(path) || request.method === 'OPTIONS') {
      // Served to anyone; a token sent along is the caller when it is good, and otherwise counts as a failure but refuses nothing.
      if (!secret || credential.kind !== 'bearer' || !options.identifiedOnPublicPaths(path)) return;
      const result = await options.tokens.authenticate(secret, { throttled: wait > 0 });
      if (result.ok) {
        request.caller = { ...result.caller, via, request: { id: request.id } };
        request.credential = 'bearer';
      } else failures.fail(request.ip);
      return;
    }
    const refuse = (message: string) => {
      failures.fail(request.ip);
      // A browser holding a session that ended is told to forget it.
      if (credential.kind === 'cookie') endBrowserSession(reply, { secure: cameOverTls(request) });
      if (wait > 0) return throttled(reply, path, options, wait);
      return deny(reply, path, options, message);
    };
    if (credential.header === undefined && !secret) return refuse('Missing access token: send Authorization: Bearer <token>');
    if (!secret) return refuse('Invalid Authorization header: expected Bearer <token>');
    const result = await options.tokens.authenticate(secret, { throttled: wait > 0 && !options.tokens.verifiedBefore(secret) });
    if (!result.ok) return refuse(credential.kind === 'cookie' ? `Your session has ended: ${result.reason}. Sign in again.` : result.reason);
    if (credential.kind === 'cookie') {
      const refusal = crossSiteRefusal(request);
      if (refusal) return forbid(reply, path, options, refusal);
    }
    request.caller = { ...result.caller, via, request: { id: request.id } };
    request.credential = credential.kind;
  });
}
