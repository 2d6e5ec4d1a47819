/**
 * A database's content, read directly (not through a server), for comparing a restored
 * or upgraded database with the one it came from: rows per table, and the checksum of
 * everything a request could change (dbChecksum.ts). What describes things outside
 * the database (replica leases, the search index formats) is left out.
 */
import { databaseChecksum } from './dbChecksum.js';
import { withClient } from './storedValues.js';

export async function tableCounts(databaseUrl: string): Promise<Record<string, number>> {
  return withClient(databaseUrl, async (c) => {
    const tables = (
      await c.query<{ name: string }>(
        "SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname NOT IN ('_prisma_migrations', 'worker_lease', 'search_index_format') ORDER BY 1",
      )
    ).rows.map((r) => r.name);
    const counts: Record<string, number> = {};
    for (const t of tables) counts[t] = Number((await c.query(`SELECT count(*)::int AS n FROM "${t}"`)).rows[0].n);
    return counts;
  });
}

export async function contentChecksum(databaseUrl: string): Promise<string> {
  return withClient(databaseUrl, (c) =>
    databaseChecksum({
      exec: async (text) => {
        await c.query(text);
      },
      query: async (text, params = []) => (await c.query(text, params as unknown[])).rows,
    }),
  );
}
