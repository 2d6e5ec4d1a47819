/**
 * The planner's statistics of the tables every write and search page goes through,
 * gathered now. Autovacuum visits a database once a minute (autovacuum_naptime) and
 * analyzes a table once a tenth of it changed; a catalog loaded in one go from empty
 * (a first `npm start`, then an import) was planned for minutes as if its tables were
 * empty, since a statement prepared then keeps its generic plan: writes at commit cost
 * PostgreSQL 1.5 ms of CPU each instead of 0.6 (BENCHMARKS.md, "Group commit: writes
 * before and after"). SKIP_LOCKED: a table locked by another session is left to the
 * next time rather than waited for.
 */
import type { Queryable } from './database.js';

export const ANALYZED_TABLES = ['entity', 'aspect', 'property_value'] as const;

export async function analyzeCatalog(db: Queryable): Promise<void> {
  await db.execute({ text: `ANALYZE (SKIP_LOCKED) ${ANALYZED_TABLES.join(', ')}`, values: [] });
}
