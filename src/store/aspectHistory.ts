/**
 * Older versions (1..n) of entities' structuredProperties aspects that still name a
 * property, and their rewrite (issue #29: hard means gone). The cleanup job reads them
 * here, takes the property out with a pure decision (domain/writes/valueCleanup.ts) and
 * writes them back here. History is not the write path's: versions keep their number,
 * author and time, and nothing is logged, since readers and the search index see only
 * the latest version.
 */
import { ASPECT } from '../domain/aspects/index.js';
import type { Queryable } from './database.js';
import { literal, sql } from './sql.js';

export interface HistoryRow {
  readonly urn: string;
  readonly version: bigint;
  readonly metadata: unknown;
}

/** A property named in a structuredProperties aspect, as a JSON containment pattern. */
const naming = (propertyUrn: string) => JSON.stringify([{ propertyUrn }]);

/**
 * Up to `limit` older versions, anywhere, that name the property and were written no
 * later than `writtenBy`, in urn order from `fromUrn` (a page: rewritten rows no longer
 * match, so the next page starts at the last urn of this one).
 */
export async function historyNaming(db: Queryable, propertyUrn: string, writtenBy: Date, fromUrn: string, limit: number): Promise<HistoryRow[]> {
  return db.query<HistoryRow>(sql`
    SELECT urn, version, metadata FROM aspect
    WHERE aspect = ${literal(ASPECT.structuredProperties)} AND version > 0 AND urn >= ${fromUrn} AND created_on <= ${writtenBy}
      AND metadata->'properties' @> ${naming(propertyUrn)}::jsonb
    ORDER BY urn, version LIMIT ${limit}`);
}

/** Writes the rows' new metadata over their versions. */
export async function rewriteHistory(db: Queryable, rows: readonly HistoryRow[]): Promise<void> {
  if (rows.length === 0) return;
  const input = JSON.stringify(rows.map((r) => ({ urn: r.urn, version: String(r.version), metadata: r.metadata })));
  await db.execute(sql`
    UPDATE aspect a SET metadata = r.metadata
    FROM jsonb_to_recordset(${input}::jsonb) AS r(urn text, version bigint, metadata jsonb)
    WHERE a.urn = ANY(${[...new Set(rows.map((r) => r.urn))]}::text[])
      AND a.urn = r.urn AND a.aspect = ${literal(ASPECT.structuredProperties)} AND a.version = r.version`);
}
