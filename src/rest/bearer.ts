/**
 * The evaluate route's bearer-token check (seed 5). The central authentication hook
 * (issue #5) replaces this: until then a route that needs a token calls
 * requireBearer. With auth enabled the header must be `Authorization: Bearer <token>`,
 * and when a ROOT_TOKEN is configured the token must be that one.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { UnauthorizedError } from '../domain/errors.js';

export interface BearerSettings {
  readonly enabled: boolean;
  readonly rootToken: string | undefined;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function requireBearer(request: FastifyRequest, settings: BearerSettings): void {
  if (!settings.enabled) return;
  const header = request.headers.authorization;
  if (header === undefined) throw new UnauthorizedError('Missing Authorization header: send Authorization: Bearer <token>');
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!match) throw new UnauthorizedError('Invalid Authorization header: expected Bearer <token>');
  if (settings.rootToken !== undefined && !sameSecret(match[1]!, settings.rootToken)) throw new UnauthorizedError('Invalid access token');
}
