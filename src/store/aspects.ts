/**
 * Versioned aspects (version 0 = latest; every write copies the previous latest to
 * the next history version) and the entity rows that anchor them. Every write also
 * appends to the change log in the same transaction: see changeLog.ts.
 */
import type { Db, Tx } from './database.js';
import { appendChange } from './changeLog.js';

export interface StoredAspect {
  readonly aspect: string;
  readonly metadata: unknown;
  readonly systemMetadata: Record<string, unknown> | null;
  readonly createdOn: Date;
  readonly createdBy: string;
}

type Queryable = Db | Tx;

interface AspectRow {
  aspect: string;
  metadata: unknown;
  system_metadata: Record<string, unknown> | null;
  created_on: Date;
  created_by: string;
}

function toStored(r: AspectRow): StoredAspect {
  return { aspect: r.aspect, metadata: r.metadata, systemMetadata: r.system_metadata, createdOn: r.created_on, createdBy: r.created_by };
}

export async function entityExists(db: Queryable, urn: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ one: number }[]>`SELECT 1 AS one FROM entity WHERE urn = ${urn}`;
  return rows.length > 0;
}

/** Latest versions of an entity's aspects (all of them, or those named). */
export async function latestAspects(db: Queryable, urn: string, names?: readonly string[]): Promise<Map<string, StoredAspect>> {
  const rows = names
    ? await db.$queryRaw<AspectRow[]>`
        SELECT aspect, metadata, system_metadata, created_on, created_by FROM aspect
        WHERE urn = ${urn} AND version = 0 AND aspect = ANY(${names as string[]}::text[])`
    : await db.$queryRaw<AspectRow[]>`
        SELECT aspect, metadata, system_metadata, created_on, created_by FROM aspect
        WHERE urn = ${urn} AND version = 0`;
  return new Map(rows.map((r) => [r.aspect, toStored(r)]));
}

export async function latestAspect(db: Queryable, urn: string, name: string): Promise<StoredAspect | undefined> {
  return (await latestAspects(db, urn, [name])).get(name);
}

/** Latest versions of one aspect for many entities. */
export async function latestAspectOfMany(db: Queryable, urns: readonly string[], name: string): Promise<Map<string, StoredAspect>> {
  if (urns.length === 0) return new Map();
  const rows = await db.$queryRaw<(AspectRow & { urn: string })[]>`
    SELECT urn, aspect, metadata, system_metadata, created_on, created_by FROM aspect
    WHERE urn = ANY(${urns as string[]}::text[]) AND aspect = ${name} AND version = 0`;
  return new Map(rows.map((r) => [r.urn, toStored(r)]));
}

/** Latest versions of many entities' aspects (all of them, or those named), by URN then aspect. */
export async function latestAspectsOfMany(db: Queryable, urns: readonly string[], names?: readonly string[]): Promise<Map<string, Map<string, StoredAspect>>> {
  const out = new Map<string, Map<string, StoredAspect>>();
  if (urns.length === 0) return out;
  const rows = names
    ? await db.$queryRaw<(AspectRow & { urn: string })[]>`
        SELECT urn, aspect, metadata, system_metadata, created_on, created_by FROM aspect
        WHERE urn = ANY(${urns as string[]}::text[]) AND version = 0 AND aspect = ANY(${names as string[]}::text[])`
    : await db.$queryRaw<(AspectRow & { urn: string })[]>`
        SELECT urn, aspect, metadata, system_metadata, created_on, created_by FROM aspect
        WHERE urn = ANY(${urns as string[]}::text[]) AND version = 0`;
  for (const r of rows) {
    const byAspect = out.get(r.urn) ?? new Map<string, StoredAspect>();
    byAspect.set(r.aspect, toStored(r));
    out.set(r.urn, byAspect);
  }
  return out;
}

export type EntityLock = 'created' | 'existed' | 'missing';

/**
 * Locks the entity's row for the rest of the transaction, creating it first when
 * `create` is set. Every write to an entity goes through here, so concurrent writers
 * to one entity queue up instead of losing each other's updates.
 */
export async function lockEntity(tx: Tx, urn: string, entityType: string, create: boolean): Promise<EntityLock> {
  if (create) {
    const inserted = await tx.$queryRaw<{ urn: string }[]>`
      INSERT INTO entity (urn, entity_type) VALUES (${urn}, ${entityType}) ON CONFLICT (urn) DO NOTHING RETURNING urn`;
    // A row this transaction inserted is already locked by it.
    if (inserted.length > 0) return 'created';
  }
  const rows = await tx.$queryRaw<{ one: number }[]>`SELECT 1 AS one FROM entity WHERE urn = ${urn} FOR UPDATE`;
  return rows.length > 0 ? 'existed' : 'missing';
}

/** Which of the entities exist, holding share locks so they cannot be deleted before commit. */
export async function entitiesExistLocked(tx: Tx, urns: readonly string[]): Promise<Set<string>> {
  const rows = await tx.$queryRaw<{ urn: string }[]>`SELECT urn FROM entity WHERE urn = ANY(${urns as string[]}::text[]) ORDER BY urn FOR SHARE`;
  return new Set(rows.map((r) => r.urn));
}

/** URNs of the schemaField entities of a dataset. */
export async function schemaFieldsOf(db: Queryable, datasetUrn: string): Promise<string[]> {
  const prefix = `urn:li:schemaField:(${datasetUrn},`;
  const rows = await db.$queryRaw<{ urn: string }[]>`
    SELECT urn FROM entity WHERE entity_type = 'schemaField' AND left(urn, ${prefix.length}) = ${prefix}`;
  return rows.map((r) => r.urn);
}

/** Aspect names an entity currently has. */
export async function aspectNames(db: Queryable, urn: string): Promise<string[]> {
  const rows = await db.$queryRaw<{ aspect: string }[]>`SELECT aspect FROM aspect WHERE urn = ${urn} AND version = 0`;
  return rows.map((r) => r.aspect);
}

/** Deletes every version of one aspect. Returns the change id, or undefined when there was none. */
export async function deleteAspect(tx: Tx, urn: string, entityType: string, aspect: string): Promise<bigint | undefined> {
  const n = await tx.$executeRaw`DELETE FROM aspect WHERE urn = ${urn} AND aspect = ${aspect}`;
  if (n === 0) return undefined;
  // Optimistic writers that read the entity before this delete must not succeed after it.
  await tx.$executeRaw`UPDATE entity SET version = version + 1 WHERE urn = ${urn}`;
  return appendChange(tx, urn, entityType, aspect, 'DELETE');
}

/** Deletes the entity and all its aspects. Returns the change id, or undefined when there was none. */
export async function deleteEntity(tx: Tx, urn: string, entityType: string): Promise<bigint | undefined> {
  const n = await tx.$executeRaw`DELETE FROM entity WHERE urn = ${urn}`;
  return n > 0 ? appendChange(tx, urn, entityType, null, 'DELETE') : undefined;
}

/** Entity URNs of one type in URN order, after `afterUrn` (keyset paging). */
export async function listEntityUrns(db: Queryable, entityType: string, afterUrn: string | null, limit: number): Promise<string[]> {
  const rows = await db.$queryRaw<{ urn: string }[]>`
    SELECT urn FROM entity WHERE entity_type = ${entityType} AND (${afterUrn}::text IS NULL OR urn > ${afterUrn})
    ORDER BY urn LIMIT ${limit}`;
  return rows.map((r) => r.urn);
}

/** Like listEntityUrns, leaving out soft-deleted entities (latest status.removed = true). */
export async function listLiveEntityUrns(db: Queryable, entityType: string, afterUrn: string | null, limit: number): Promise<string[]> {
  const rows = await db.$queryRaw<{ urn: string }[]>`
    SELECT e.urn FROM entity e
    WHERE e.entity_type = ${entityType} AND (${afterUrn}::text IS NULL OR e.urn > ${afterUrn})
      AND NOT EXISTS (
        SELECT 1 FROM aspect a
        WHERE a.urn = e.urn AND a.aspect = 'status' AND a.version = 0 AND a.metadata->>'removed' = 'true')
    ORDER BY e.urn LIMIT ${limit}`;
  return rows.map((r) => r.urn);
}

export interface AuditStamp {
  readonly time: number;
  readonly actor: string;
}

export interface AuditStamps {
  readonly created: AuditStamp;
  readonly lastModified: AuditStamp;
}

/**
 * When an aspect was first written and last modified, and by whom: history version 1
 * is always the first write (every later write pushes the previous latest to a new
 * version), version 0 the latest.
 */
export async function aspectAudit(db: Queryable, urn: string, aspect: string): Promise<AuditStamps | undefined> {
  const rows = await db.$queryRaw<{ version: bigint; created_on: Date; created_by: string }[]>`
    SELECT version, created_on, created_by FROM aspect WHERE urn = ${urn} AND aspect = ${aspect} AND version IN (0, 1)`;
  const latest = rows.find((r) => r.version === 0n);
  if (!latest) return undefined;
  const first = rows.find((r) => r.version === 1n) ?? latest;
  return {
    created: { time: first.created_on.getTime(), actor: first.created_by },
    lastModified: { time: latest.created_on.getTime(), actor: latest.created_by },
  };
}

/** Which of the URNs exist as entities. */
export async function existingEntities(db: Queryable, urns: readonly string[]): Promise<Set<string>> {
  if (urns.length === 0) return new Set();
  const rows = await db.$queryRaw<{ urn: string }[]>`SELECT urn FROM entity WHERE urn = ANY(${urns as string[]}::text[])`;
  return new Set(rows.map((r) => r.urn));
}

/** How many entities there are of each of the types. */
export async function countEntitiesByType(db: Queryable, entityTypes: readonly string[]): Promise<Map<string, number>> {
  const rows = await db.$queryRaw<{ entity_type: string; n: bigint }[]>`
    SELECT entity_type, COUNT(*) AS n FROM entity WHERE entity_type = ANY(${entityTypes as string[]}::text[]) GROUP BY entity_type`;
  return new Map(rows.map((r) => [r.entity_type, Number(r.n)]));
}
