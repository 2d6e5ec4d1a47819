/**
 * Access tokens (docs/contract.md §10): 256-bit random secrets, stored only as a SHA-256 hash; a
 * scope of read, write or admin, each allowing what the one before allows.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ValidationError } from './errors.js';
import { LIMITS } from './limits.js';
import { plainIdProblem, ROOT_TOKEN_NAME } from './principal.js';

// The scopes live apart from the secrets (no node:crypto there), so the policies and the console can use them.
export { parseScope, scopeAllows, SCOPES, scopesAbove, type TokenScope } from './tokenScope.js';

/**
 * What a token is for: `machine` tokens are issued by an admin and act as
 * `urn:li:corpuser:__service_<name>` (domain/principal.ts); `personal` tokens are issued
 * by a signed-in person for their own scripts and act as them; `session` tokens are
 * issued at sign-in (the console, `propgraph login`) and act as whoever signed in: a
 * person, or the principal of the token the console was signed in with.
 */
export const TOKEN_KINDS = ['machine', 'personal', 'session'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** The kinds a client may ask for; sessions come only from signing in. */
export type IssuableTokenKind = Exclude<TokenKind, 'session'>;

export function parseIssuableKind(value: unknown, field = 'type'): IssuableTokenKind | undefined {
  if (value === undefined || value === null) return undefined;
  const kind = typeof value === 'string' ? value.toLowerCase() : value;
  if (kind === 'machine' || kind === 'personal') return kind;
  throw new ValidationError(`${field} must be personal or machine (session tokens are issued only by signing in)`, field);
}

export function parseKind(value: string): TokenKind {
  return (TOKEN_KINDS as readonly string[]).includes(value) ? (value as TokenKind) : 'machine';
}

const TOKEN_PREFIX = 'pgt_';

/** A new secret: 32 random bytes, base64url, with a prefix that makes leaked tokens easy to spot. */
export function newTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function hashToken(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of two token hashes. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** Reads `Authorization: Bearer <token>`; undefined when absent or of another scheme. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

/** A personal or session token's name: a label its owner reads in their token list. */
export function parseTokenName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ValidationError('name is required', 'name');
  if (value.length > LIMITS.nameLength) throw new ValidationError(`name is longer than the limit of ${LIMITS.nameLength} characters`, 'name');
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new ValidationError('name must not contain control characters', 'name');
  return value.trim();
}

/**
 * A machine token's name, which becomes its principal, `urn:li:corpuser:__service_<name>`,
 * on everything it writes: a plain identifier, and never one that would pass for someone
 * else. An email address is a person's form of principal (a person signed in as
 * ana@example.com is `urn:li:corpuser:ana@example.com`), and `root` is the bootstrap
 * token's: both are refused.
 */
export function parseMachineTokenName(value: unknown): string {
  const name = parseTokenName(value);
  const hint = 'a machine token acts as urn:li:corpuser:__service_<name>; name it after the job or service, e.g. nightly-loader';
  const problem = plainIdProblem(name);
  if (problem) throw new ValidationError(`name ${JSON.stringify(name.slice(0, 200))} ${problem}: ${hint}`, 'name');
  if (name.includes('@')) throw new ValidationError(`name ${JSON.stringify(name.slice(0, 200))} is an email address, the form of a person's principal, and a machine token must never pass for a person: ${hint}`, 'name');
  if (name.toLowerCase() === ROOT_TOKEN_NAME) throw new ValidationError(`name ${JSON.stringify(name)} is the root token's (ROOT_TOKEN) and is not given to another: ${hint}`, 'name');
  return name;
}

export function parseTokenDescription(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new ValidationError('description must be a string', 'description');
  if (value.length > 10_000) throw new ValidationError('description is longer than the limit of 10000 characters', 'description');
  if (value.includes('\u0000')) throw new ValidationError('description contains the character U+0000, which cannot be stored', 'description');
  return value;
}
