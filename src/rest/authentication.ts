/**
 * The one authentication hook in front of REST, GraphQL and the evaluate route
 * (docs/contract.md §10): `Authorization: Bearer <token>` is checked on every route except the
 * public ones, and the caller it establishes reaches every service call, where the
 * authorization wrappers check its scope. A missing or bad token is 401 (on the
 * GraphQL routes as a GraphQL error with code UNAUTHENTICATED).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../domain/accessToken.js';
import type { TokenService } from '../services/tokenService.js';
import { LOCAL_CALLER } from './caller.js';
import { CLIENT_HEADER, interfaceOf } from './writeInterface.js';

export interface AuthenticationOptions {
  readonly enabled: boolean;
  readonly tokens: TokenService;
  /** Paths (without query) served without a token, e.g. /health. */
  readonly publicPaths: (path: string) => boolean;
  /** Paths whose errors must be GraphQL-shaped. */
  readonly graphqlPaths: readonly string[];
}

function deny(reply: FastifyReply, path: string, options: AuthenticationOptions, message: string): FastifyReply {
  reply.header('www-authenticate', 'Bearer');
  if (options.graphqlPaths.includes(path)) {
    return reply.code(401).type('application/json').send({ errors: [{ message, extensions: { code: 'UNAUTHENTICATED' } }] });
  }
  return reply.code(401).type('application/json').send({ error: 'Unauthorized', message });
}

export function installAuthentication(app: FastifyInstance, options: AuthenticationOptions): void {
  app.decorateRequest('caller', null as never);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    const via = interfaceOf(path, request.headers[CLIENT_HEADER], options.graphqlPaths);
    if (!options.enabled) {
      request.caller = { ...LOCAL_CALLER, via };
      return;
    }
    if (options.publicPaths(path) || request.method === 'OPTIONS') return;
    const header = request.headers.authorization;
    if (header === undefined) return deny(reply, path, options, 'Missing access token: send Authorization: Bearer <token>');
    const secret = bearerToken(header);
    if (!secret) return deny(reply, path, options, 'Invalid Authorization header: expected Bearer <token>');
    const result = await options.tokens.authenticate(secret);
    if (!result.ok) return deny(reply, path, options, result.reason);
    request.caller = { ...result.caller, via };
  });
}
