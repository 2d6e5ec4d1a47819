/**
 * When entities were created and last written: the search documents carry both, so
 * that a search can sort on them (DataHub's createdTime and lastModifiedTime sorts).
 */
import type { Queryable } from './database.js';
import { sql } from './sql.js';

export interface EntityTimes {
  /** The entity's first write, ms since the epoch. */
  readonly created: number;
  /** The latest write of any of its aspects (its creation when it has none), ms since the epoch. */
  readonly modified: number;
}

export type EntityTimesReader = (urns: readonly string[]) => Promise<Map<string, EntityTimes>>;

/** The times of the entities that have a row of their own (a schema field has none: its dataset's row anchors it). */
export function entityTimesReader(db: Queryable): EntityTimesReader {
  return async (urns) => {
    const out = new Map<string, EntityTimes>();
    if (urns.length === 0) return out;
    const rows = await db.query<{ urn: string; created: Date; modified: Date | null }>(sql`
      SELECT e.urn, e.created_on AS created,
             (SELECT max(a.created_on) FROM aspect a WHERE a.urn = e.urn AND a.version = 0) AS modified
      FROM entity e WHERE e.urn = ANY(${urns}::text[])`);
    for (const r of rows) out.set(r.urn, { created: r.created.getTime(), modified: (r.modified ?? r.created).getTime() });
    return out;
  };
}
