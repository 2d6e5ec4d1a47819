/** Stored access tokens: hashes only, never the secrets. */
import type { Db } from './database.js';
import { Prisma } from './generated/prisma/client.js';

export interface StoredToken {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly scope: string;
  readonly tokenHash: string;
  readonly createdOn: Date;
  readonly createdBy: string;
  readonly expiresOn: Date | null;
  readonly revokedOn: Date | null;
  readonly lastUsedOn: Date | null;
  /** machine, personal or session (store/ keeps the text; services/ gives it meaning). */
  readonly kind: string;
  /** The person a personal or session token belongs to. */
  readonly owner: string | null;
}

interface Row {
  id: string;
  name: string;
  description: string | null;
  scope: string;
  token_hash: string;
  created_on: Date;
  created_by: string;
  expires_on: Date | null;
  revoked_on: Date | null;
  last_used_on: Date | null;
  kind: string;
  owner: string | null;
}

function toToken(r: Row): StoredToken {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    scope: r.scope,
    tokenHash: r.token_hash,
    createdOn: r.created_on,
    createdBy: r.created_by,
    expiresOn: r.expires_on,
    revokedOn: r.revoked_on,
    lastUsedOn: r.last_used_on,
    kind: r.kind,
    owner: r.owner,
  };
}

const COLUMNS = Prisma.raw('id, name, description, scope, token_hash, created_on, created_by, expires_on, revoked_on, last_used_on, kind, owner');

export interface NewStoredToken {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly scope: string;
  readonly tokenHash: string;
  readonly createdBy: string;
  readonly expiresOn: Date | null;
  readonly kind: string;
  readonly owner: string | null;
}

export async function insertToken(db: Db, t: NewStoredToken): Promise<StoredToken> {
  const rows = await db.$queryRaw<Row[]>`
    INSERT INTO access_token (id, name, description, scope, token_hash, created_by, expires_on, kind, owner)
    VALUES (${t.id}, ${t.name}, ${t.description}, ${t.scope}, ${t.tokenHash}, ${t.createdBy}, ${t.expiresOn}, ${t.kind}, ${t.owner})
    RETURNING ${COLUMNS}`;
  return toToken(rows[0]!);
}

export async function findTokenByHash(db: Db, tokenHash: string): Promise<StoredToken | undefined> {
  const rows = await db.$queryRaw<Row[]>`SELECT ${COLUMNS} FROM access_token WHERE token_hash = ${tokenHash}`;
  return rows[0] ? toToken(rows[0]) : undefined;
}

export async function findToken(db: Db, id: string): Promise<StoredToken | undefined> {
  const rows = await db.$queryRaw<Row[]>`SELECT ${COLUMNS} FROM access_token WHERE id = ${id}`;
  return rows[0] ? toToken(rows[0]) : undefined;
}

export async function listTokens(db: Db): Promise<StoredToken[]> {
  const rows = await db.$queryRaw<Row[]>`SELECT ${COLUMNS} FROM access_token ORDER BY created_on, id`;
  return rows.map(toToken);
}

export async function listTokensOwnedBy(db: Db, owner: string): Promise<StoredToken[]> {
  const rows = await db.$queryRaw<Row[]>`SELECT ${COLUMNS} FROM access_token WHERE owner = ${owner} ORDER BY created_on, id`;
  return rows.map(toToken);
}

/**
 * Lowers the scope of a person's live tokens that exceed `scope` to it (their groups
 * gave them less at their latest sign-in); the ids of the tokens changed.
 */
export async function capOwnedTokens(db: Db, owner: string, scope: string, above: readonly string[]): Promise<string[]> {
  if (above.length === 0) return [];
  const rows = await db.$queryRaw<{ id: string }[]>`
    UPDATE access_token SET scope = ${scope}
    WHERE owner = ${owner} AND revoked_on IS NULL AND scope = ANY(${[...above]}::text[])
    RETURNING id`;
  return rows.map((r) => r.id);
}

/** Marks a token revoked; false when it does not exist or was already revoked. */
export async function revokeToken(db: Db, id: string): Promise<boolean> {
  const n = await db.$executeRaw`UPDATE access_token SET revoked_on = now() WHERE id = ${id} AND revoked_on IS NULL`;
  return n > 0;
}

/** Sets the hash of a named bootstrap token (ROOT_TOKEN), creating the token when absent. */
export async function upsertNamedToken(db: Db, t: { id: string; name: string; scope: string; tokenHash: string; createdBy: string }): Promise<void> {
  await db.$executeRaw`
    INSERT INTO access_token (id, name, scope, token_hash, created_by) VALUES (${t.id}, ${t.name}, ${t.scope}, ${t.tokenHash}, ${t.createdBy})
    ON CONFLICT (id) DO UPDATE SET token_hash = EXCLUDED.token_hash, scope = EXCLUDED.scope, revoked_on = NULL, expires_on = NULL`;
}

export async function hasActiveAdminToken(db: Db): Promise<boolean> {
  const rows = await db.$queryRaw<{ one: number }[]>`
    SELECT 1 AS one FROM access_token WHERE scope = 'admin' AND revoked_on IS NULL AND (expires_on IS NULL OR expires_on > now()) LIMIT 1`;
  return rows.length > 0;
}

/** Records use at most once a minute per token, so reads do not turn into writes. */
export async function touchToken(db: Db, id: string): Promise<void> {
  await db.$executeRaw`UPDATE access_token SET last_used_on = now() WHERE id = ${id} AND (last_used_on IS NULL OR last_used_on < now() - interval '1 minute')`;
}
