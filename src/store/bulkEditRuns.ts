/**
 * What a bulk edit's run left on entities: the write path stamps each entity it changes
 * with the run (systemMetadata.runId). A chunk redone after a crash reads the stamps to
 * count the entities its lost attempt changed as changed, not as unchanged (issue #46
 * item 15).
 */
import type { Queryable } from './database.js';
import { sql } from './sql.js';

/** Those of the entities whose latest structuredProperties was written by run `runId`. */
export async function entitiesWrittenByRun(db: Queryable, urns: readonly string[], runId: string): Promise<Set<string>> {
  if (urns.length === 0) return new Set();
  const rows = await db.query<{ urn: string }>(sql`
    SELECT urn FROM aspect WHERE urn = ANY(${urns}::text[]) AND aspect = 'structuredProperties' AND version = 0
      AND system_metadata->>'runId' = ${runId}`);
  return new Set(rows.map((r) => r.urn));
}
