/**
 * Where a planted value can still be read (docs/contract.md §14, "Hard means gone"): every
 * table of a server's database, each row as text, and every document of its own search
 * indexes. A suite plants a unique value, hard-deletes, and expects both scans empty.
 */
import type { TestServer } from './server.js';
import { withClient } from './storedValues.js';

/** Rows of every table of the database whose text holds `text`, by table. */
export async function tablesHolding(server: Pick<TestServer, 'databaseUrl'>, text: string): Promise<Record<string, number>> {
  return withClient(server.databaseUrl, async (client) => {
    const tables = (await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'")).rows;
    // A scan of no table would find nothing anywhere: that must not pass for "gone".
    if (tables.length <= 10) throw new Error(`only ${tables.length} tables found: not propgraph's database`);
    const found: Record<string, number> = {};
    for (const { table_name: table } of tables) {
      const n = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}" t WHERE t::text LIKE $1`, [`%${text}%`])).rows[0]!.n);
      if (n > 0) found[table] = n;
    }
    return found;
  });
}

/** Documents of the server's own search indexes whose JSON holds `text`. */
export async function documentsHolding(server: Pick<TestServer, 'config'>, text: string): Promise<number> {
  const meili = { url: server.config.meiliUrl!, key: server.config.meiliApiKey! };
  const headers = { authorization: `Bearer ${meili.key}` };
  const { results } = (await (await fetch(`${meili.url}/indexes?limit=1000`, { headers })).json()) as { results: Array<{ uid: string }> };
  const mine = results.filter((r) => r.uid.startsWith(server.config.meiliIndexPrefix));
  if (mine.length === 0) throw new Error('no search index of this server: nothing to scan');
  let holding = 0;
  for (const { uid } of mine) {
    const { results: docs } = (await (await fetch(`${meili.url}/indexes/${uid}/documents?limit=10000`, { headers })).json()) as { results: unknown[] };
    holding += docs.filter((d) => JSON.stringify(d).includes(text)).length;
  }
  return holding;
}
