/**
 * A position in the change log for a consumer beside the indexer (the metadata-test
 * evaluator). The indexer marks each row; a second consumer records how far it got
 * instead, as the (xid, id) of the last change it handled, and reads on from there.
 *
 * Ids alone would not do: a transaction that took a lower id may commit after higher
 * ones were read. Every transaction whose id is below the oldest one still running
 * (the current snapshot's xmin) has finished, so the rows below that horizon, in (xid,
 * id) order, are final: nothing can be inserted before the position later.
 */
import { sql } from './sql.js';
import type { Queryable, Tx } from './database.js';

export interface LogPosition {
  readonly xid: bigint;
  readonly id: bigint;
}

/**
 * A consumer whose position has not been saved (or touched) for this long counts as
 * gone: the indexer's pruning stops keeping rows for it, and when it comes back it
 * cannot trust the log after its position (see restartConsumer).
 */
export const CONSUMER_STALE_SECONDS = 12 * 3600;

export interface ConsumedChange {
  readonly xid: bigint;
  readonly id: bigint;
  readonly urn: string;
  readonly entityType: string;
  /** The aspects the change wrote, comma-separated; null for a delete. */
  readonly aspect: string | null;
  readonly changeType: string;
}

export async function consumerPosition(db: Queryable, name: string): Promise<(LogPosition & { readonly stale: boolean }) | null> {
  const rows = await db.query<{ xid: bigint; id: bigint; stale: boolean }>(sql`
    SELECT xid, id, updated_on < now() - make_interval(secs => ${CONSUMER_STALE_SECONDS}) AS stale FROM change_log_consumer WHERE name = ${name}`);
  return rows[0] ? { xid: BigInt(rows[0].xid), id: BigInt(rows[0].id), stale: rows[0].stale } : null;
}

/**
 * Starts a consumer at the horizon: every change of a finished transaction counts as
 * seen (the caller covers them otherwise, e.g. with a full run). Null when another
 * process started it first.
 */
export async function startConsumer(tx: Tx, name: string): Promise<LogPosition | null> {
  const rows = await tx.query<{ xid: bigint; id: bigint }>(sql`
    INSERT INTO change_log_consumer (name, xid, id)
    VALUES (${name}, pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 1, 9223372036854775807)
    ON CONFLICT (name) DO NOTHING RETURNING xid, id`);
  return rows[0] ? { xid: BigInt(rows[0].xid), id: BigInt(rows[0].id) } : null;
}

/** Moves a consumer back to the horizon, for one that was away long enough for the log to be pruned past it. */
export async function restartConsumer(tx: Tx, name: string): Promise<LogPosition> {
  const rows = await tx.query<{ xid: bigint; id: bigint }>(sql`
    UPDATE change_log_consumer SET xid = pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 1, id = 9223372036854775807, updated_on = now()
    WHERE name = ${name} RETURNING xid, id`);
  return { xid: BigInt(rows[0]!.xid), id: BigInt(rows[0]!.id) };
}

/** Marks a consumer as alive while it has nothing to read (so that it never counts as gone). */
export async function touchConsumer(db: Queryable, name: string, lease: { name: string; holder: string }): Promise<void> {
  await db.execute(sql`
    UPDATE change_log_consumer SET updated_on = now() WHERE name = ${name}
      AND EXISTS (SELECT 1 FROM worker_lease l WHERE l.name = ${lease.name} AND l.holder = ${lease.holder} AND l.expires_at > now())`);
}

/** The changes after `after`, below the horizon, in log order, at most `limit`. */
export async function changesAfter(db: Queryable, after: LogPosition, limit: number): Promise<ConsumedChange[]> {
  const rows = await db.query<{ xid: bigint; id: bigint; urn: string; entity_type: string; aspect: string | null; change_type: string }>(sql`
    SELECT xid, id, urn, entity_type, aspect, change_type FROM change_log
    WHERE (xid, id) > (${after.xid.toString()}::bigint, ${after.id.toString()}::bigint)
      AND xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
    ORDER BY xid, id LIMIT ${limit}`);
  return rows.map((r) => ({ xid: BigInt(r.xid), id: BigInt(r.id), urn: r.urn, entityType: r.entity_type, aspect: r.aspect, changeType: r.change_type }));
}

/**
 * Whether any committed change lies after the position, the horizon aside: a change a
 * still-open transaction's snapshot keeps below the horizon is committed all the same,
 * and a consumer has not caught up until it has handled it.
 */
export async function anyChangeAfter(db: Queryable, after: LogPosition): Promise<boolean> {
  const rows = await db.query<{ one: number }>(sql`
    SELECT 1 AS one FROM change_log WHERE (xid, id) > (${after.xid.toString()}::bigint, ${after.id.toString()}::bigint) LIMIT 1`);
  return rows.length > 0;
}

/**
 * Records the position, only while `holder` holds the consumer's lease (a replica that
 * lost it cannot move the position of its successor). False when it does not.
 */
export async function savePosition(db: Queryable, name: string, position: LogPosition, lease: { name: string; holder: string }): Promise<boolean> {
  const n = await db.execute(sql`
    UPDATE change_log_consumer SET xid = ${position.xid.toString()}::bigint, id = ${position.id.toString()}::bigint, updated_on = now()
    WHERE name = ${name}
      AND EXISTS (SELECT 1 FROM worker_lease l WHERE l.name = ${lease.name} AND l.holder = ${lease.holder} AND l.expires_at > now())`);
  return n > 0;
}
