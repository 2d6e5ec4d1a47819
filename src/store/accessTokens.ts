/** Stored access tokens: hashes only, never the secrets. */
import type { Db } from './database.js';
import type { AccessTokenModel } from './generated/prisma/models.js';
import { raw, sql } from './sql.js';

/**
 * A row of access_token, as schema.prisma describes it. `kind` is machine, personal or
 * session (store/ keeps the text; services/ gives it meaning); `owner` is the principal a
 * personal or session token belongs to; `parentId` the token a console session was
 * opened with.
 */
export type StoredToken = Readonly<AccessTokenModel>;

/** A token as authentication needs it: with what limits it, the token it was opened with (when it was). */
export interface TokenWithParent extends StoredToken {
  readonly parent: Readonly<Pick<StoredToken, 'scope' | 'expiresOn' | 'revokedOn'>> | null;
}

const COLUMN_LIST =
  'id, name, description, scope, token_hash AS "tokenHash", created_on AS "createdOn", created_by AS "createdBy", expires_on AS "expiresOn", revoked_on AS "revokedOn", last_used_on AS "lastUsedOn", kind, owner, parent_id AS "parentId", groups';
const COLUMNS = raw(COLUMN_LIST);
const T_COLUMNS = raw(COLUMN_LIST.split(', ').map((c) => `t.${c}`).join(', '));

export type NewStoredToken = Pick<StoredToken, 'id' | 'name' | 'description' | 'scope' | 'tokenHash' | 'createdBy' | 'expiresOn' | 'kind' | 'owner'> & {
  readonly parentId?: string | null;
  readonly groups?: readonly string[];
};

export async function insertToken(db: Db, t: NewStoredToken): Promise<StoredToken> {
  const rows = await db.query<StoredToken>(sql`
    INSERT INTO access_token (id, name, description, scope, token_hash, created_by, expires_on, kind, owner, parent_id, groups)
    VALUES (${t.id}, ${t.name}, ${t.description}, ${t.scope}, ${t.tokenHash}, ${t.createdBy}, ${t.expiresOn}, ${t.kind}, ${t.owner}, ${t.parentId ?? null}, ${[...(t.groups ?? [])]}::text[])
    RETURNING ${COLUMNS}`);
  return rows[0]!;
}

/** The tokens whose hashes are among `hashes`, each with its parent's limits; one statement however many. */
export async function findTokensByHash(db: Db, hashes: readonly string[]): Promise<TokenWithParent[]> {
  if (hashes.length === 0) return [];
  const rows = await db.query<StoredToken & { parentScope: string | null; parentExpiresOn: Date | null; parentRevokedOn: Date | null }>(sql`
    SELECT ${T_COLUMNS}, p.scope AS "parentScope", p.expires_on AS "parentExpiresOn", p.revoked_on AS "parentRevokedOn"
    FROM access_token t LEFT JOIN access_token p ON p.id = t.parent_id
    WHERE t.token_hash = ANY(${hashes}::text[])`);
  return rows.map(({ parentScope, parentExpiresOn, parentRevokedOn, ...token }) => ({
    ...token,
    // A session whose parent row is gone (a restore without it) has nothing to vouch for it: revoked.
    parent: token.parentId === null ? null : { scope: parentScope ?? 'read', expiresOn: parentExpiresOn, revokedOn: parentScope === null ? new Date(0) : parentRevokedOn },
  }));
}

export async function findTokenByHash(db: Db, tokenHash: string): Promise<TokenWithParent | undefined> {
  return (await findTokensByHash(db, [tokenHash]))[0];
}

/** Revokes a console session by its hash (signing out); undefined when there is none, or it was revoked already. */
export async function revokeSessionByHash(db: Db, tokenHash: string): Promise<Pick<StoredToken, 'id' | 'owner'> | undefined> {
  const rows = await db.query<Pick<StoredToken, 'id' | 'owner'>>(sql`
    UPDATE access_token SET revoked_on = now() WHERE token_hash = ${tokenHash} AND kind = 'session' AND revoked_on IS NULL RETURNING id, owner`);
  return rows[0];
}

export async function findToken(db: Db, id: string): Promise<StoredToken | undefined> {
  return (await db.query<StoredToken>(sql`SELECT ${COLUMNS} FROM access_token WHERE id = ${id}`))[0];
}

export async function listTokens(db: Db): Promise<StoredToken[]> {
  return db.query<StoredToken>(sql`SELECT ${COLUMNS} FROM access_token ORDER BY created_on, id`);
}

export async function listTokensOwnedBy(db: Db, owner: string): Promise<StoredToken[]> {
  return db.query<StoredToken>(sql`SELECT ${COLUMNS} FROM access_token WHERE owner = ${owner} ORDER BY created_on, id`);
}

/** Sets the groups of a person's live tokens to those their latest sign-in gave them; the ids of the tokens changed. */
export async function setOwnedTokenGroups(db: Db, owner: string, groups: readonly string[]): Promise<string[]> {
  const rows = await db.query<Pick<StoredToken, 'id'>>(sql`
    UPDATE access_token SET groups = ${[...groups]}::text[]
    WHERE owner = ${owner} AND revoked_on IS NULL AND groups IS DISTINCT FROM ${[...groups]}::text[]
    RETURNING id`);
  return rows.map((r) => r.id);
}

/**
 * Lowers the scope of a person's live tokens that exceed `scope` to it (their groups
 * gave them less at their latest sign-in); the ids of the tokens changed.
 */
export async function capOwnedTokens(db: Db, owner: string, scope: string, above: readonly string[]): Promise<string[]> {
  if (above.length === 0) return [];
  const rows = await db.query<Pick<StoredToken, 'id'>>(sql`
    UPDATE access_token SET scope = ${scope}
    WHERE owner = ${owner} AND revoked_on IS NULL AND scope = ANY(${above}::text[])
    RETURNING id`);
  return rows.map((r) => r.id);
}

/** Marks a token revoked; false when it does not exist or was already revoked. */
export async function revokeToken(db: Db, id: string): Promise<boolean> {
  return (await db.execute(sql`UPDATE access_token SET revoked_on = now() WHERE id = ${id} AND revoked_on IS NULL`)) > 0;
}

/** Sets the hash of a named bootstrap token (ROOT_TOKEN), creating the token when absent. */
export async function upsertNamedToken(db: Db, t: { id: string; name: string; scope: string; tokenHash: string; createdBy: string }): Promise<void> {
  await db.execute(sql`
    INSERT INTO access_token (id, name, scope, token_hash, created_by) VALUES (${t.id}, ${t.name}, ${t.scope}, ${t.tokenHash}, ${t.createdBy})
    ON CONFLICT (id) DO UPDATE SET token_hash = EXCLUDED.token_hash, scope = EXCLUDED.scope, revoked_on = NULL, expires_on = NULL`);
}

export async function hasActiveAdminToken(db: Db): Promise<boolean> {
  const rows = await db.query<{ one: number }>(sql`
    SELECT 1 AS one FROM access_token WHERE scope = 'admin' AND revoked_on IS NULL AND (expires_on IS NULL OR expires_on > now()) LIMIT 1`);
  return rows.length > 0;
}

/** Records use at most once a minute per token, so reads do not turn into writes. */
export async function touchToken(db: Db, id: string): Promise<void> {
  await db.execute(sql`UPDATE access_token SET last_used_on = now() WHERE id = ${id} AND (last_used_on IS NULL OR last_used_on < now() - interval '1 minute')`);
}

/** The groups on the owner's newest live token (what their latest sign-in gave them); undefined when they have none. */
export async function groupsOfLatestToken(db: Db, owner: string): Promise<string[] | undefined> {
  const rows = await db.query<{ groups: string[] }>(sql`
    SELECT groups FROM access_token WHERE owner = ${owner} AND revoked_on IS NULL AND (expires_on IS NULL OR expires_on > now())
    ORDER BY created_on DESC LIMIT 1`);
  return rows[0]?.groups;
}

/** The scopes of the live tokens acting as a principal: those it owns, or the machine token of that name. */
export async function liveScopesOf(db: Db, principal: { readonly owner: string; readonly machineName: string | null }): Promise<string[]> {
  const rows = await db.query<{ scope: string }>(sql`
    SELECT DISTINCT scope FROM access_token
    WHERE revoked_on IS NULL AND (expires_on IS NULL OR expires_on > now())
      AND (owner = ${principal.owner} OR (owner IS NULL AND kind = 'machine' AND name = ${principal.machineName}))`);
  return rows.map((r) => r.scope);
}
