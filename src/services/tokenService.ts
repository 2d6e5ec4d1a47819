/**
 * Access tokens (SPEC 10): issue (the secret is returned once), list, revoke, and
 * authenticate a presented secret. A bootstrap admin token comes from ROOT_TOKEN or,
 * when no admin token exists yet, is generated (the caller writes it to a file).
 */
import { randomUUID } from 'node:crypto';
import { hashToken, newTokenSecret, parseScope, parseTokenDescription, parseTokenName, sameHash, type TokenScope } from '../domain/accessToken.js';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { findToken, findTokenByHash, hasActiveAdminToken, insertToken, listTokens, revokeToken, touchToken, upsertNamedToken, type StoredToken } from '../store/accessTokens.js';
import type { Db } from '../store/database.js';
import type { Caller } from './caller.js';

export interface TokenMetadata {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly scope: TokenScope;
  readonly createdAt: number;
  readonly createdBy: string;
  readonly expiresAt: number | null;
  readonly revoked: boolean;
  readonly lastUsedAt: number | null;
}

export interface NewToken {
  /** The secret: shown once, never stored. */
  readonly token: string;
  readonly metadata: TokenMetadata;
}

export interface CreateTokenInput {
  readonly name: string;
  readonly scope: string;
  readonly description?: string | null;
  /** Expiry in milliseconds since the epoch; null or absent for no expiry. */
  readonly expiresAt?: number | null;
}

export type AuthResult = { ok: true; caller: Caller } | { ok: false; reason: string };

const ROOT_ID = 'root';
/** A verified token is trusted this long before it is looked up again (bounds revocation lag). */
const CACHE_MS = 2000;
/**
 * A secret found to be no token is refused this long without a lookup (issue #29: 1,100
 * bad requests a second each cost one). A new token's secret is random, so none is
 * refused wrongly; creating one clears its entry anyway.
 */
const UNKNOWN_MS = 5000;
/** Secrets remembered, each way; beyond, the least recently used are dropped. */
const CACHE_ENTRIES = 10_000;

function metadataOf(t: StoredToken): TokenMetadata {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    scope: parseScope(t.scope),
    createdAt: t.createdOn.getTime(),
    createdBy: t.createdBy,
    expiresAt: t.expiresOn?.getTime() ?? null,
    revoked: t.revokedOn !== null,
    lastUsedAt: t.lastUsedOn?.getTime() ?? null,
  };
}

export function callerOfToken(t: { name: string; scope: string; id: string }): Caller {
  return { actor: `urn:li:corpuser:${t.name}`, scope: parseScope(t.scope), tokenId: t.id };
}

export interface TokenService {
  /** A new token; its secret is in the answer and nowhere else. */
  create(caller: Caller, input: CreateTokenInput): Promise<NewToken>;
  /** Every token's metadata, never a secret. */
  list(caller: Caller): Promise<TokenMetadata[]>;
  /** Revokes a token at once on this server; 404 when there is none. */
  revoke(caller: Caller, id: string): Promise<boolean>;
  /** Checks a presented secret. The lookup is by hash; the final comparison is constant-time. */
  authenticate(secret: string): Promise<AuthResult>;
  /** Whether this server has verified the secret before (recently enough to remember it), without a lookup. */
  verifiedBefore(secret: string): boolean;
  /**
   * Makes sure an admin token exists. With ROOT_TOKEN, that secret becomes the root
   * token. Otherwise, when no usable admin token exists, a new root secret is generated
   * and returned (only then) for the caller to hand over; it is never logged.
   */
  ensureRootToken(rootToken: string | undefined): Promise<string | undefined>;
}

export class DefaultTokenService implements TokenService {
  private readonly cache = new Map<string, { token: StoredToken; at: number }>();
  /** Hashes found to be no token, with when that stops being trusted; in least recently used order. */
  private readonly unknown = new Map<string, number>();

  constructor(private readonly deps: { db: Db; log: Logger }) {}

  async create(caller: Caller, input: CreateTokenInput): Promise<NewToken> {
    const name = parseTokenName(input.name);
    const scope = parseScope(input.scope);
    if (input.expiresAt !== undefined && input.expiresAt !== null) {
      if (!Number.isFinite(input.expiresAt) || input.expiresAt <= Date.now()) throw new ValidationError('expiresAt must be in the future', 'expiresAt');
    }
    const description = parseTokenDescription(input.description);
    const secret = newTokenSecret();
    const stored = await insertToken(this.deps.db, {
      id: randomUUID(),
      name,
      description,
      scope,
      tokenHash: hashToken(secret),
      createdBy: caller.actor,
      expiresOn: input.expiresAt ? new Date(input.expiresAt) : null,
    });
    this.unknown.delete(stored.tokenHash);
    this.deps.log.info({ tokenId: stored.id, name, scope }, 'access token created');
    return { token: secret, metadata: metadataOf(stored) };
  }

  async list(_caller: Caller): Promise<TokenMetadata[]> {
    return (await listTokens(this.deps.db)).map(metadataOf);
  }

  async revoke(_caller: Caller, id: string): Promise<boolean> {
    const token = await findToken(this.deps.db, id);
    if (!token) throw new NotFoundError(`Access token ${id} does not exist`);
    const revoked = await revokeToken(this.deps.db, id);
    this.cache.delete(token.tokenHash);
    if (revoked) this.deps.log.info({ tokenId: id }, 'access token revoked');
    return true;
  }

  async authenticate(secret: string): Promise<AuthResult> {
    const hash = hashToken(secret);
    const now = Date.now();
    let cached = this.cache.get(hash);
    if (!cached || now - cached.at > CACHE_MS) {
      const unknownUntil = this.unknown.get(hash);
      if (unknownUntil !== undefined && unknownUntil > now) {
        this.unknown.delete(hash);
        this.unknown.set(hash, unknownUntil);
        return { ok: false, reason: 'Invalid access token' };
      }
      const token = await findTokenByHash(this.deps.db, hash);
      if (!token) {
        this.cache.delete(hash);
        this.unknown.delete(hash);
        this.unknown.set(hash, now + UNKNOWN_MS);
        if (this.unknown.size > CACHE_ENTRIES) this.unknown.delete(this.unknown.keys().next().value!);
        return { ok: false, reason: 'Invalid access token' };
      }
      this.unknown.delete(hash);
      cached = { token, at: now };
      this.cache.set(hash, cached);
      if (this.cache.size > CACHE_ENTRIES) this.cache.clear();
      void touchToken(this.deps.db, token.id).catch(() => undefined);
    }
    const token = cached.token;
    if (!sameHash(token.tokenHash, hash)) return { ok: false, reason: 'Invalid access token' };
    if (token.revokedOn) return { ok: false, reason: 'Access token has been revoked' };
    if (token.expiresOn && token.expiresOn.getTime() <= now) return { ok: false, reason: 'Access token has expired' };
    return { ok: true, caller: callerOfToken(token) };
  }

  verifiedBefore(secret: string): boolean {
    const cached = this.cache.get(hashToken(secret));
    return cached !== undefined && !cached.token.revokedOn;
  }

  async ensureRootToken(rootToken: string | undefined): Promise<string | undefined> {
    if (rootToken) {
      await upsertNamedToken(this.deps.db, { id: ROOT_ID, name: 'root', scope: 'admin', tokenHash: hashToken(rootToken), createdBy: 'ROOT_TOKEN' });
      this.unknown.delete(hashToken(rootToken));
      return undefined;
    }
    if (await hasActiveAdminToken(this.deps.db)) return undefined;
    const secret = newTokenSecret();
    await upsertNamedToken(this.deps.db, { id: ROOT_ID, name: 'root', scope: 'admin', tokenHash: hashToken(secret), createdBy: 'bootstrap' });
    return secret;
  }
}
