/**
 * Access tokens (docs/contract.md §10): issue (the secret is returned once), list, revoke, and
 * authenticate a presented secret. A bootstrap admin token comes from ROOT_TOKEN or,
 * when no admin token exists yet, is generated (the caller writes it to a file).
 *
 * People who signed in (issue #30) hold tokens of their own: personal tokens they issue
 * for their scripts, never above their own scope, and the session tokens signing in
 * gives them. Both act as the person. A person lists and revokes their own tokens; an
 * admin sees and revokes every token.
 */
import { randomUUID } from 'node:crypto';
import {
  hashToken,
  newTokenSecret,
  parseIssuableKind,
  parseMachineTokenName,
  parseKind,
  parseScope,
  parseTokenDescription,
  parseTokenName,
  sameHash,
  scopeAllows,
  scopesAbove,
  type TokenKind,
  type TokenScope,
} from '../domain/accessToken.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.js';
import type { Person } from '../domain/person.js';
import { machinePrincipal } from '../domain/principal.js';
import type { Logger } from '../platform/logger.js';
import { AuditTrail } from './audit.js';
import {
  capOwnedTokens,
  setOwnedTokenGroups,
  findToken,
  hasActiveAdminToken,
  insertToken,
  listTokens,
  listTokensOwnedBy,
  revokeSessionByHash,
  revokeToken,
  upsertNamedToken,
  type StoredToken,
} from '../store/accessTokens.js';
import type { Db } from '../store/database.js';
import { isPerson, type Caller } from './caller.js';
import { TokenLookup } from './tokenLookup.js';

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
  readonly type: TokenKind;
  /** The person a personal or session token belongs to (and acts as); null for machine tokens. */
  readonly owner: string | null;
  /** Who the token acts as: its owner, or for a machine token `urn:li:corpuser:__service_<name>`. */
  readonly principal: string;
  /** The token a console session was opened with (it lives no longer than that one); null otherwise. */
  readonly parentId: string | null;
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
  /** `personal` or `machine`; absent: personal for a signed-in person, machine otherwise. */
  readonly type?: string | null;
}

/** A sign-in's token: the person, what to call it, how long it lives. */
export interface SignInTokenInput {
  readonly person: Person;
  readonly name: string;
  readonly lifetimeMs: number;
}

export type AuthResult = { ok: true; caller: Caller } | { ok: false; reason: string };

export interface AuthenticateOptions {
  /**
   * The request comes from an address past its failed-authentication limit: its lookup
   * shares one statement with the others' (services/sharedLookups.ts), and is refused
   * at once when too many wait.
   */
  readonly throttled?: boolean;
}

const ROOT_ID = 'root';

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
    type: parseKind(t.kind),
    owner: t.owner,
    principal: principalOfToken(t),
    parentId: t.parentId,
  };
}

/**
 * Who a token acts as: its owner (a person, or the principal of the token a console
 * session was opened with), or for a machine token `urn:li:corpuser:__service_<name>`,
 * a namespace no person can have (domain/principal.ts).
 */
export function principalOfToken(t: { name: string; owner: string | null }): string {
  return t.owner ?? machinePrincipal(t.name);
}

export function callerOfToken(t: { name: string; scope: string; id: string; kind: string; owner: string | null; groups?: readonly string[] | null }): Caller {
  const groups = t.groups ?? [];
  return { actor: principalOfToken(t), scope: parseScope(t.scope), tokenId: t.id, tokenKind: parseKind(t.kind), ...(groups.length > 0 ? { groups } : {}) };
}

/** The kind a create asks for, and whether this caller may have it. */
export function kindToCreate(caller: Caller, input: Pick<CreateTokenInput, 'type'>): TokenKind {
  return parseIssuableKind(input.type) ?? (isPerson(caller) ? 'personal' : 'machine');
}

export interface TokenService {
  /** A new token; its secret is in the answer and nowhere else. */
  create(caller: Caller, input: CreateTokenInput): Promise<NewToken>;
  /** Every token's metadata for an admin, a person's own otherwise; never a secret. */
  list(caller: Caller): Promise<TokenMetadata[]>;
  /** Revokes a token at once on this server; 404 when there is none; a person's own only, unless admin. */
  revoke(caller: Caller, id: string): Promise<boolean>;
  /** Checks a presented secret. The lookup is by hash; the final comparison is constant-time. */
  authenticate(secret: string, options?: AuthenticateOptions): Promise<AuthResult>;
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
  private readonly lookup: TokenLookup;
  private readonly audit: AuditTrail;

  constructor(private readonly deps: { db: Db; log: Logger }) {
    this.audit = new AuditTrail(deps.log);
    this.lookup = new TokenLookup(deps.db);
  }

  async create(caller: Caller, input: CreateTokenInput): Promise<NewToken> {
    return this.audit.around(
      { action: 'token.create', actor: caller.actor, target: `token name ${String(input.name)}` },
      () => this.createToken(caller, input),
      (created) => ({ tokenId: created.metadata.id, scope: created.metadata.scope, type: created.metadata.type }),
    );
  }

  private async createToken(caller: Caller, input: CreateTokenInput): Promise<NewToken> {
    const kind = kindToCreate(caller, input);
    const name = kind === 'machine' ? parseMachineTokenName(input.name) : parseTokenName(input.name);
    const scope = parseScope(input.scope);
    if (input.expiresAt !== undefined && input.expiresAt !== null) {
      if (!Number.isFinite(input.expiresAt) || input.expiresAt <= Date.now()) throw new ValidationError('expiresAt must be in the future', 'expiresAt');
    }
    const description = parseTokenDescription(input.description);
    if (kind === 'personal') {
      if (!isPerson(caller)) {
        throw new ValidationError(`type personal: a personal token belongs to a person signed in through OpenID Connect, and ${caller.actor} is a machine token; ask for type machine`, 'type');
      }
      if (!scopeAllows(caller.scope, scope)) {
        throw new ForbiddenError(`A personal token cannot have more than its owner's scope: ${caller.actor} has ${caller.scope} scope, and ${scope} was asked for`);
      }
    }
    const groups = kind === 'personal' ? (caller.groups ?? []) : [];
    return this.insert({ name, description, scope, kind, owner: kind === 'personal' ? caller.actor : null, createdBy: caller.actor, expiresOn: input.expiresAt ? new Date(input.expiresAt) : null, groups });
  }

  /**
   * The session token a sign-in gives a person (the console's, or the one `propgraph
   * login` stores). Their personal tokens above the scope their groups now give them
   * are lowered to it: a person's tokens never act above the person.
   */
  async issueSignInToken(input: SignInTokenInput): Promise<NewToken> {
    return this.audit.around(
      { action: 'token.create', actor: input.person.urn, target: `token name ${input.name}`, detail: { kind: 'session' } },
      () => this.issueSessionToken(input),
      (created) => ({ tokenId: created.metadata.id, scope: created.metadata.scope }),
    );
  }

  private async issueSessionToken(input: SignInTokenInput): Promise<NewToken> {
    const { person } = input;
    const lowered = await capOwnedTokens(this.deps.db, person.urn, person.scope, scopesAbove(person.scope));
    // Their tokens act with the groups they have now: a group the provider took away grants nothing from this sign-in on.
    const regrouped = await setOwnedTokenGroups(this.deps.db, person.urn, person.groups);
    if (regrouped.length > 0 && lowered.length === 0) this.lookup.forgetAll();
    if (lowered.length > 0) {
      this.lookup.forgetAll();
      this.deps.log.info({ owner: person.urn, scope: person.scope, tokenIds: lowered }, 'personal tokens lowered to their owner\'s scope');
    }
    return this.insert({
      name: parseTokenName(input.name),
      description: null,
      scope: person.scope,
      kind: 'session',
      owner: person.urn,
      createdBy: person.urn,
      expiresOn: new Date(Date.now() + input.lifetimeMs),
      groups: person.groups,
    });
  }

  /**
   * A console session opened with the token the caller presented (the console's sign-in
   * with an access token): a session token acting as the same principal, with the same
   * scope, living at most `lifetimeMs` and never past that token, which it dies with
   * (revoked, expired, or lowered: authenticate() reads the parent's state with the
   * session's).
   */
  async openSession(caller: Caller, input: { lifetimeMs: number }): Promise<NewToken> {
    return this.audit.around(
      { action: 'token.create', actor: caller.actor, target: `session of token ${caller.tokenId ?? '(none)'}`, detail: { kind: 'session' } },
      async () => {
        const parent = caller.tokenId ? await findToken(this.deps.db, caller.tokenId) : undefined;
        if (!parent) throw new ValidationError('A console session is opened with an access token: send it as Authorization: Bearer <token>', 'authorization');
        const until = Date.now() + input.lifetimeMs;
        const expiresOn = parent.expiresOn && parent.expiresOn.getTime() < until ? parent.expiresOn : new Date(until);
        return this.insert({
          name: `console sign-in with ${parent.name}`.slice(0, 200),
          description: null,
          scope: caller.scope,
          kind: 'session',
          owner: caller.actor,
          createdBy: caller.actor,
          expiresOn,
          parentId: parent.id,
          groups: caller.groups ?? [],
        });
      },
      (created) => ({ tokenId: created.metadata.id, scope: created.metadata.scope, parentId: created.metadata.parentId ?? '' }),
    );
  }

  /**
   * Ends the console session whose secret the browser presented (signing out): revoked at
   * once, for every tab that shares it. Presenting the secret is the authority; anything
   * but a live session token is left alone. Whether one was ended.
   */
  async endSession(secret: string): Promise<boolean> {
    const hash = hashToken(secret);
    const ended = await revokeSessionByHash(this.deps.db, hash);
    this.lookup.forget(hash);
    if (ended) this.audit.record({ action: 'token.revoke', actor: ended.owner ?? 'unknown', target: `token ${ended.id}`, outcome: 'done', detail: { kind: 'session', signOut: true } });
    return ended !== undefined;
  }

  private async insert(t: {
    name: string;
    description: string | null;
    scope: TokenScope;
    kind: TokenKind;
    owner: string | null;
    createdBy: string;
    expiresOn: Date | null;
    parentId?: string;
    groups?: readonly string[];
  }): Promise<NewToken> {
    const secret = newTokenSecret();
    const stored = await insertToken(this.deps.db, { id: randomUUID(), tokenHash: hashToken(secret), ...t });
    this.lookup.issued(stored.tokenHash);
    return { token: secret, metadata: metadataOf(stored) };
  }

  async list(caller: Caller): Promise<TokenMetadata[]> {
    const tokens = scopeAllows(caller.scope, 'admin') ? await listTokens(this.deps.db) : await listTokensOwnedBy(this.deps.db, caller.actor);
    return tokens.map(metadataOf);
  }

  async revoke(caller: Caller, id: string): Promise<boolean> {
    return this.audit.around({ action: 'token.revoke', actor: caller.actor, target: `token ${id}` }, async () => {
      const token = await findToken(this.deps.db, id);
      if (!token) throw new NotFoundError(`Access token ${id} does not exist`);
      if (!scopeAllows(caller.scope, 'admin') && token.owner !== caller.actor) {
        throw new ForbiddenError(`Access token ${id} is not yours: a person revokes their own tokens; an admin revokes any`);
      }
      await revokeToken(this.deps.db, id);
      // It, and the console sessions opened with it, end on this server at once.
      this.lookup.forget(token.tokenHash, id);
      return true;
    });
  }

  async authenticate(secret: string, options: AuthenticateOptions = {}): Promise<AuthResult> {
    const hash = hashToken(secret);
    const now = Date.now();
    const found = await this.lookup.find(hash, options, now);
    if (found === 'full') return { ok: false, reason: 'Too many authentications are waiting from addresses past their failure limit' };
    if (found === 'unknown') return { ok: false, reason: 'Invalid access token' };
    const { token } = found;
    if (!sameHash(token.tokenHash, hash)) return { ok: false, reason: 'Invalid access token' };
    if (token.revokedOn) return { ok: false, reason: 'Access token has been revoked' };
    if (token.expiresOn && token.expiresOn.getTime() <= now) return { ok: false, reason: 'Access token has expired' };
    const { parent } = token;
    if (!parent) return { ok: true, caller: callerOfToken(token) };
    if (parent.revokedOn) return { ok: false, reason: 'The access token this session was opened with has been revoked' };
    if (parent.expiresOn && parent.expiresOn.getTime() <= now) return { ok: false, reason: 'The access token this session was opened with has expired' };
    const caller = callerOfToken(token);
    // Never above the token it was opened with, which may have been lowered since.
    return { ok: true, caller: scopeAllows(parent.scope as TokenScope, caller.scope) ? caller : { ...caller, scope: parseScope(parent.scope) } };
  }

  verifiedBefore(secret: string): boolean {
    return this.lookup.verifiedBefore(hashToken(secret));
  }

  async ensureRootToken(rootToken: string | undefined): Promise<string | undefined> {
    if (rootToken) {
      await upsertNamedToken(this.deps.db, { id: ROOT_ID, name: 'root', scope: 'admin', tokenHash: hashToken(rootToken), createdBy: 'ROOT_TOKEN' });
      this.lookup.issued(hashToken(rootToken));
      return undefined;
    }
    if (await hasActiveAdminToken(this.deps.db)) return undefined;
    const secret = newTokenSecret();
    await upsertNamedToken(this.deps.db, { id: ROOT_ID, name: 'root', scope: 'admin', tokenHash: hashToken(secret), createdBy: 'bootstrap' });
    return secret;
  }
}
