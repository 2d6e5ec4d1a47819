/**
 * The search index formats the change log feeds (table search_index_format;
 * search/indexFormat.ts): whether a format's indexes are built, and up to when they
 * reflect the changes marked indexed. One indexer drains the change log at a time,
 * whatever its version; a format whose indexer takes over from another format's
 * re-reads the changes marked since its own last batch (catchUp), so a rolling upgrade
 * that hands the indexer back and forth leaves no format's index behind.
 */
import type { Queryable } from './database.js';
import type { SearchIndexFormatModel } from './generated/prisma/models.js';
import { sql } from './sql.js';

export type FormatState = Pick<SearchIndexFormatModel, 'builtOn' | 'marksSeenUntil'>;

export async function formatState(db: Queryable, format: string): Promise<FormatState | null> {
  const rows = await db.query<FormatState>(sql`
    SELECT built_on AS "builtOn", marks_seen_until AS "marksSeenUntil" FROM search_index_format WHERE format = ${format}`);
  return rows[0] ?? null;
}

/** Records a format, not built, if unknown. */
export async function registerFormat(db: Queryable, format: string): Promise<void> {
  await db.execute(sql`INSERT INTO search_index_format (format) VALUES (${format}) ON CONFLICT (format) DO NOTHING`);
}

/** The format's indexes lost their content (created anew): searches say so until a build completes. */
export async function formatUnbuilt(db: Queryable, format: string): Promise<void> {
  await db.execute(sql`
    INSERT INTO search_index_format (format) VALUES (${format})
    ON CONFLICT (format) DO UPDATE SET built_on = NULL`);
}

/**
 * A build from the database that began at `started` completed. The format is known to
 * reflect changes marked up to `started` only: later ones may have gone to another
 * format's indexer, and are re-read when this format takes the indexer again.
 */
export async function formatBuilt(db: Queryable, format: string, started: Date): Promise<void> {
  await db.execute(sql`
    INSERT INTO search_index_format (format, built_on, marks_seen_until) VALUES (${format}, now(), ${started})
    ON CONFLICT (format) DO UPDATE SET built_on = now(), marks_seen_until = LEAST(search_index_format.marks_seen_until, ${started})`);
}

/** Marks changes indexed into `format`'s indexes, and notes that they reflect marks up to now. */
export async function markIndexedFor(db: Queryable, ids: readonly bigint[], format: string): Promise<void> {
  if (ids.length === 0) return;
  await db.execute(sql`
    WITH marked AS (UPDATE change_log SET indexed_on = now() WHERE id = ANY(${ids.map(String)}::bigint[]) RETURNING 1)
    UPDATE search_index_format SET marks_seen_until = GREATEST(marks_seen_until, now())
     WHERE format = ${format} AND EXISTS (SELECT 1 FROM marked)`);
}

/** Sends the changes marked at or after `since` through the indexer again; returns how many. */
export async function catchUp(db: Queryable, since: Date): Promise<number> {
  return db.execute(sql`UPDATE change_log SET indexed_on = NULL WHERE indexed_on >= ${since}`);
}

/** Whether the database holds any entity (a format's first build has something to do). */
export async function anyEntity(db: Queryable): Promise<boolean> {
  const rows = await db.query<{ one: number }>(sql`SELECT 1 AS one FROM entity LIMIT 1`);
  return rows.length > 0;
}
