/**
 * Finding a presented token by its hash, without asking the database for every request
 * (services/tokenService.ts authenticates with it): verified tokens are trusted for two
 * seconds, secrets found to be no token are refused for five without a lookup, and the
 * lookups of addresses past their failure limit share one statement at a time
 * (sharedLookups.ts, issue #46 item 11). What the token allows is decided by the caller.
 */
import { findTokenByHash, findTokensByHash, touchToken, type TokenWithParent } from '../store/accessTokens.js';
import type { Db } from '../store/database.js';
import { sharedLookupStatements, throttledLookups } from '../telemetry/metrics.js';
import { SharedLookups } from './sharedLookups.js';

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
/** Throttled lookups: hashes one statement asks for, hashes waiting at most, and a statement per this many milliseconds at most. */
const SHARED_LOOKUP = { maxKeys: 500, maxWaiting: 5_000, roundMs: 100 };

export type Found = { readonly token: TokenWithParent } | 'unknown' | 'full';

export class TokenLookup {
  private readonly cache = new Map<string, { token: TokenWithParent; at: number }>();
  /** Hashes found to be no token, with when that stops being trusted; in least recently used order. */
  private readonly unknown = new Map<string, number>();
  private readonly shared: SharedLookups<TokenWithParent>;

  constructor(private readonly db: Db) {
    this.shared = new SharedLookups({
      ...SHARED_LOOKUP,
      lookup: async (hashes) => new Map((await findTokensByHash(db, hashes)).map((t) => [t.tokenHash, t])),
      counted: { queued: (outcome) => throttledLookups.inc({ outcome }), statement: () => sharedLookupStatements.inc() },
    });
  }

  /** The token of `hash`; `throttled` lookups share a statement, and are refused ('full') when too many wait. */
  async find(hash: string, options: { throttled?: boolean } = {}, now = Date.now()): Promise<Found> {
    const cached = this.cache.get(hash);
    if (cached && now - cached.at <= CACHE_MS) return { token: cached.token };
    const unknownUntil = this.unknown.get(hash);
    if (unknownUntil !== undefined && unknownUntil > now) {
      this.unknown.delete(hash);
      this.unknown.set(hash, unknownUntil);
      return 'unknown';
    }
    let token: TokenWithParent | undefined;
    if (options.throttled) {
      const answer = await this.shared.find(hash);
      if (answer === 'full') return 'full';
      token = answer.found;
    } else {
      token = await findTokenByHash(this.db, hash);
    }
    if (!token) {
      this.cache.delete(hash);
      this.unknown.delete(hash);
      this.unknown.set(hash, now + UNKNOWN_MS);
      if (this.unknown.size > CACHE_ENTRIES) this.unknown.delete(this.unknown.keys().next().value!);
      return 'unknown';
    }
    this.unknown.delete(hash);
    this.cache.set(hash, { token, at: now });
    if (this.cache.size > CACHE_ENTRIES) this.cache.clear();
    void touchToken(this.db, token.id).catch(() => undefined);
    return { token };
  }

  /** Whether `hash` was verified before (recently enough to remember) and not found revoked. */
  verifiedBefore(hash: string): boolean {
    const cached = this.cache.get(hash);
    return cached !== undefined && !cached.token.revokedOn;
  }

  /** A token was just issued with this hash: it is no longer unknown. */
  issued(hash: string): void {
    this.unknown.delete(hash);
  }

  /** A token changed on this server: look it up again, and the sessions opened with it (`id`) too. */
  forget(hash: string, id?: string): void {
    this.cache.delete(hash);
    if (id !== undefined) for (const [h, entry] of this.cache) if (entry.token.parentId === id) this.cache.delete(h);
  }

  /** Tokens changed in bulk (lowered at a sign-in): look every one up again. */
  forgetAll(): void {
    this.cache.clear();
  }
}
