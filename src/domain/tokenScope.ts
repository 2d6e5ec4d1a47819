/**
 * A token's scope (docs/contract.md §10): read, write or admin, each allowing what the one
 * before allows. Apart from domain/accessToken.ts, whose secrets need node:crypto, so that
 * the policies (and the console, which reads their vocabulary) can use it in a browser.
 */
import { ValidationError } from './errors.js';

export const SCOPES = ['read', 'write', 'admin'] as const;
export type TokenScope = (typeof SCOPES)[number];

/** The scopes greater than `scope`. */
export function scopesAbove(scope: TokenScope): TokenScope[] {
  return SCOPES.slice(SCOPES.indexOf(scope) + 1);
}

export function parseScope(value: unknown, field = 'scope'): TokenScope {
  const scope = typeof value === 'string' ? value.toLowerCase() : value;
  if (!SCOPES.includes(scope as TokenScope)) throw new ValidationError(`${field} must be one of read, write, admin`, field);
  return scope as TokenScope;
}

/** Whether a token of scope `have` may do what needs `need`. */
export function scopeAllows(have: TokenScope, need: TokenScope): boolean {
  return SCOPES.indexOf(have) >= SCOPES.indexOf(need);
}
