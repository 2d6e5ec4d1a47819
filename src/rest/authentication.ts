/**
 * The one authentication hook in front of REST, GraphQL and the evaluate route
 * (docs/contract.md §10): `Authorization: Bearer <token>` is checked on every route except the
 * public ones, and the caller it establishes reaches every service call, where the
 * authorization wrappers check its scope. A missing or bad token is 401 (on the
 * GraphQL routes as a GraphQL error with code UNAUTHENTICATED). Failed authentications
 * count against the client's address (authFailures.ts): past the limit it is answered
 * 429, without a lookup, unless it presents a token this server verified before. The
 * rate limit runs after this hook, keyed on the caller established here.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../domain/accessToken.js';
import type { TokenService } from '../services/tokenService.js';
import { AuthFailureThrottle } from './authFailures.js';
import { LOCAL_CALLER } from './caller.js';
import { CLIENT_HEADER, interfaceOf } from './writeInterface.js';

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

function throttled(reply: FastifyReply, path: string, options: AuthenticationOptions, retryAfterMs: number): FastifyReply {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const message = `Too many failed authentications from this address (limit ${options.failuresPerMinute} per minute); retry in ${seconds} s`;
  reply.header('retry-after', String(seconds));
  if (options.graphqlPaths.includes(path)) {
    return reply.code(429).type('application/json').send({ errors: [{ message, extensions: { code: 'RATE_LIMITED' } }] });
  }
  return reply.code(429).type('application/json').send({ error: 'Too Many Requests', message });
}

export function installAuthentication(app: FastifyInstance, options: AuthenticationOptions): void {
  const failures = new AuthFailureThrottle(options.failuresPerMinute);
  app.decorateRequest('caller', null as never);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    const via = interfaceOf(path, request.headers[CLIENT_HEADER], options.graphqlPaths);
    if (!options.enabled) {
      request.caller = { ...LOCAL_CALLER, via };
      return;
    }
    const header = request.headers.authorization;
    const secret = bearerToken(header);
    const wait = failures.retryAfterMs(request.ip);
    if (options.publicPaths(path) || request.method === 'OPTIONS') {
      // Served to anyone; a token sent along is the caller when it is good, and otherwise counts as a failure but refuses nothing.
      if (!secret || !options.identifiedOnPublicPaths(path) || (wait > 0 && !options.tokens.verifiedBefore(secret))) return;
      const result = await options.tokens.authenticate(secret);
      if (result.ok) request.caller = { ...result.caller, via };
      else failures.fail(request.ip);
      return;
    }
    if (wait > 0 && !(secret && options.tokens.verifiedBefore(secret))) return throttled(reply, path, options, wait);
    const refuse = (message: string) => {
      failures.fail(request.ip);
      return deny(reply, path, options, message);
    };
    if (header === undefined) return refuse('Missing access token: send Authorization: Bearer <token>');
    if (!secret) return refuse('Invalid Authorization header: expected Bearer <token>');
    const result = await options.tokens.authenticate(secret);
    if (!result.ok) return refuse(result.reason);
    request.caller = { ...result.caller, via };
  });
}
