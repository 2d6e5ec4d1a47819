/**
 * The change log (transactional outbox). Rows are appended in the same transaction
 * as the change they describe; the search indexer claims pending rows, rebuilds the
 * affected documents from the database, and marks the rows indexed. Nothing committed
 * can therefore be missed by the index, whatever crashes in between.
 */
import { CONSUMER_STALE_SECONDS } from './changeLogConsumer.js';
import type { Queryable } from './database.js';
import type { ChangeLogModel, EntityModel } from './generated/prisma/models.js';
import { sql } from './sql.js';

export type PendingChange = Pick<ChangeLogModel, 'id' | 'urn' | 'entityType' | 'traceParent'>;

/**
 * The oldest pending changes, at most `limit`, leaving out `exclude` (changes already
 * sent). Not a position: a transaction that took a lower id may commit after higher
 * ones were read, and must still be found.
 */
export async function pendingChanges(db: Queryable, limit: number, exclude: readonly bigint[] = []): Promise<PendingChange[]> {
  return db.query<PendingChange>(sql`
    SELECT id, urn, entity_type AS "entityType", trace_parent AS "traceParent" FROM change_log
    WHERE indexed_on IS NULL AND NOT (id = ANY(${exclude.map(String)}::bigint[]))
    ORDER BY id LIMIT ${limit}`);
}

export async function markIndexed(db: Queryable, ids: readonly bigint[]): Promise<void> {
  if (ids.length === 0) return;
  await db.execute(sql`UPDATE change_log SET indexed_on = now() WHERE id = ANY(${ids.map(String)}::bigint[])`);
}

/** Those of the given changes not indexed yet (pruned rows count as indexed). */
export async function unindexedAmong(db: Queryable, ids: readonly bigint[]): Promise<Set<bigint>> {
  if (ids.length === 0) return new Set();
  const rows = await db.query<Pick<ChangeLogModel, 'id'>>(sql`
    SELECT id FROM change_log WHERE id = ANY(${ids.map(String)}::bigint[]) AND indexed_on IS NULL`);
  return new Set(rows.map((r) => r.id));
}

/**
 * Whether some entity of these types has no pending change: its changes were indexed
 * already (into an index that is gone, if the index is new), so only a rebuild brings
 * it back. Entities with a pending change reach a new index through the log.
 */
export async function entitiesIndexedBefore(db: Queryable, entityTypes: readonly string[]): Promise<boolean> {
  if (entityTypes.length === 0) return false;
  const rows = await db.query<{ one: number }>(sql`
    SELECT 1 AS one FROM entity e
    WHERE e.entity_type = ANY(${entityTypes}::text[])
      AND NOT EXISTS (SELECT 1 FROM change_log c WHERE c.urn = e.urn AND c.indexed_on IS NULL)
    LIMIT 1`);
  return rows.length > 0;
}

/**
 * Drops indexed rows older than `olderThanSeconds` so the log does not grow forever,
 * keeping those another live consumer (change_log_consumer) has not passed yet.
 */
export async function pruneIndexed(db: Queryable, olderThanSeconds: number): Promise<number> {
  return db.execute(sql`
    DELETE FROM change_log c WHERE c.indexed_on IS NOT NULL AND c.indexed_on < now() - make_interval(secs => ${olderThanSeconds})
      AND NOT EXISTS (
        SELECT 1 FROM change_log_consumer k
        WHERE k.updated_on >= now() - make_interval(secs => ${CONSUMER_STALE_SECONDS}) AND (c.xid, c.id) > (k.xid, k.id))`);
}

/**
 * Vacuums the change log: the entries of changes marked indexed leave the index of pending
 * changes. Skipped, not waited for, while another vacuum holds the table.
 */
export async function vacuumChangeLog(db: Queryable): Promise<void> {
  await db.execute({ text: 'VACUUM (SKIP_LOCKED) change_log', values: [] });
}

/** The database clock, so that times compared with indexed_on come from one clock. */
export async function databaseNow(db: Queryable): Promise<Date> {
  const rows = await db.query<{ now: Date }>(sql`SELECT now() AS now`);
  return rows[0]!.now;
}

/**
 * Makes changes indexed at or after `since` pending again: after a rebuild swaps in a
 * new index, whatever the indexer wrote to the old one meanwhile is replayed.
 */
export async function reopenIndexedSince(db: Queryable, since: Date): Promise<number> {
  return db.execute(sql`UPDATE change_log SET indexed_on = NULL WHERE indexed_on >= ${since}`);
}

/** Which of these entities have a change at or below `upTo` still waiting for the indexer. */
export async function entitiesPendingUpTo(db: Queryable, urns: readonly string[], upTo: bigint): Promise<Set<string>> {
  if (urns.length === 0 || upTo <= 0n) return new Set();
  const rows = await db.query<Pick<EntityModel, 'urn'>>(sql`
    SELECT DISTINCT urn FROM change_log
    WHERE urn = ANY(${urns}::text[]) AND id <= ${upTo.toString()}::bigint AND indexed_on IS NULL`);
  return new Set(rows.map((r) => r.urn));
}

/**
 * The changes of these entities that the search index had not taken at `since` (still
 * pending, or indexed at or after it), by entity: a search answered at `since` saw these
 * entities as they were before those changes (a bulk edit's selection, issue #39).
 */
export async function changesUnindexedAt(db: Queryable, urns: readonly string[], since: Date): Promise<Map<string, bigint[]>> {
  const out = new Map<string, bigint[]>();
  if (urns.length === 0) return out;
  const rows = await db.query<Pick<ChangeLogModel, 'id' | 'urn'>>(sql`
    SELECT id, urn FROM change_log WHERE urn = ANY(${urns}::text[]) AND (indexed_on IS NULL OR indexed_on >= ${since})`);
  for (const r of rows) out.set(r.urn, [...(out.get(r.urn) ?? []), r.id]);
  return out;
}

/** Which of these entities were written after `since` (by the database clock). */
export async function entitiesChangedSince(db: Queryable, urns: readonly string[], since: Date): Promise<Set<string>> {
  if (urns.length === 0) return new Set();
  const rows = await db.query<Pick<ChangeLogModel, 'urn'>>(sql`
    SELECT DISTINCT urn FROM change_log WHERE urn = ANY(${urns}::text[]) AND created_on > ${since}`);
  return new Set(rows.map((r) => r.urn));
}
