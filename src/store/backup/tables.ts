/**
 * What a backup holds: every table of propgraph's schema, found in the catalog rather
 * than listed, so that a table a later migration adds is backed up without a change
 * here. Left out: the migrations table (the header lists the migrations instead, and a
 * restore applies them), worker leases (which replica runs a loop now: nothing to
 * keep) and the search index formats' state (it describes the search engine's indexes,
 * which a restore rebuilds; STATE_OF_ELSEWHERE). Tables come parents first, so rows
 * load in an order the foreign keys accept.
 */
import pg from 'pg';

/** Tables about things outside the database (replicas, the search engine): emptied by a restore. */
export const STATE_OF_ELSEWHERE = ['worker_lease', 'search_index_format'];

export const NOT_BACKED_UP = new Set(['_prisma_migrations', ...STATE_OF_ELSEWHERE]);

export interface TableShape {
  readonly table: string;
  readonly columns: readonly string[];
  /** Serial columns and their sequences. */
  readonly sequences: ReadonlyArray<{ readonly column: string; readonly sequence: string }>;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The tables of the current schema with their columns, parents before children. */
export async function schemaTables(client: pg.ClientBase): Promise<TableShape[]> {
  const columns = await client.query<{ table: string; column: string; sequence: string | null }>(`
    SELECT c.relname AS table, a.attname AS column, pg_get_serial_sequence(quote_ident(c.relname), a.attname) AS sequence
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
     ORDER BY c.relname, a.attnum`);
  const references = await client.query<{ child: string; parent: string }>(`
    SELECT DISTINCT c.relname AS child, p.relname AS parent
      FROM pg_constraint k
      JOIN pg_class c ON c.oid = k.conrelid
      JOIN pg_class p ON p.oid = k.confrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE k.contype = 'f' AND n.nspname = current_schema() AND c.relname <> p.relname`);
  const shapes = new Map<string, { table: string; columns: string[]; sequences: Array<{ column: string; sequence: string }> }>();
  for (const row of columns.rows) {
    if (NOT_BACKED_UP.has(row.table)) continue;
    const shape = shapes.get(row.table) ?? { table: row.table, columns: [], sequences: [] };
    shape.columns.push(row.column);
    if (row.sequence) shape.sequences.push({ column: row.column, sequence: row.sequence });
    shapes.set(row.table, shape);
  }
  const parents = new Map<string, Set<string>>();
  for (const { child, parent } of references.rows) {
    if (!shapes.has(child) || !shapes.has(parent)) continue;
    parents.set(child, (parents.get(child) ?? new Set()).add(parent));
  }
  // Depth-first: a table after every table it references (names in order for a stable file).
  const ordered: TableShape[] = [];
  const placed = new Set<string>();
  const place = (table: string, path: Set<string>) => {
    if (placed.has(table) || path.has(table)) return;
    path.add(table);
    for (const parent of [...(parents.get(table) ?? [])].sort()) place(parent, path);
    placed.add(table);
    ordered.push(shapes.get(table)!);
  };
  for (const table of [...shapes.keys()].sort()) place(table, new Set());
  return ordered;
}

/** The migrations applied to the database, in order (none when it has no migrations table). */
export async function appliedMigrations(client: pg.ClientBase): Promise<string[]> {
  const exists = await client.query<{ found: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS found`);
  if (!exists.rows[0]?.found) return [];
  const rows = await client.query<{ name: string }>(
    'SELECT migration_name AS name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name',
  );
  return rows.rows.map((r) => r.name);
}

export interface IndexFormatRow {
  readonly format: string;
  readonly marks_seen_until: Date;
  readonly built_on: Date | null;
  readonly created_on: Date;
}

/**
 * The search index formats' state of the database at `url` (none before the table
 * exists). upgrade-data carries it from the old cluster to the new one: the data and the
 * search engine are the same, so the index needs no rebuild.
 */
export async function readIndexFormats(url: string): Promise<IndexFormatRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const exists = await client.query<{ found: boolean }>(`SELECT to_regclass('"search_index_format"') IS NOT NULL AS found`);
    if (!exists.rows[0]?.found) return [];
    return (await client.query<IndexFormatRow>('SELECT format, marks_seen_until, built_on, created_on FROM "search_index_format"')).rows;
  } finally {
    await client.end();
  }
}

export async function writeIndexFormats(url: string, rows: readonly IndexFormatRow[]): Promise<void> {
  if (rows.length === 0) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const r of rows) {
      await client.query(
        `INSERT INTO "search_index_format" (format, marks_seen_until, built_on, created_on) VALUES ($1, $2, $3, $4)
         ON CONFLICT (format) DO UPDATE SET marks_seen_until = EXCLUDED.marks_seen_until, built_on = EXCLUDED.built_on, created_on = EXCLUDED.created_on`,
        [r.format, r.marks_seen_until, r.built_on, r.created_on],
      );
    }
  } finally {
    await client.end();
  }
}
