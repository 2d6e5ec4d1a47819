/**
 * What the database holds of datasets' structured properties, read with a plain pg
 * client (not through the server under test): the latest structuredProperties aspect,
 * its history depth, the status aspect, and the property_value rows beside it. The
 * fault suites compare this with what clients were told and with the search index.
 */
import pg from 'pg';

export interface StoredDataset {
  readonly urn: string;
  /** Entries of the latest structuredProperties aspect; null when the aspect is absent. */
  readonly entries: Array<{ propertyUrn: string; values: unknown[] }> | null;
  /** Older versions of the structuredProperties aspect (writes that changed it after the first). */
  readonly history: number;
  readonly hasStatus: boolean;
  /** property_value rows by property urn. */
  readonly rows: Map<string, { generation: string; values: unknown[] }>;
}

export async function withClient<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Every dataset whose urn matches the SQL LIKE pattern, by urn. */
export async function storedDatasets(databaseUrl: string, urnLike: string): Promise<Map<string, StoredDataset>> {
  const { rows } = await withClient(databaseUrl, (c) =>
    c.query<{ urn: string; metadata: { properties: StoredDataset['entries'] } | null; history: string; has_status: boolean; value_rows: Array<{ p: string; g: string; v: unknown[] }> | null }>(
      `SELECT e.urn, a.metadata,
              (SELECT count(*) FROM aspect h WHERE h.urn = e.urn AND h.aspect = 'structuredProperties' AND h.version > 0) AS history,
              EXISTS (SELECT 1 FROM aspect s WHERE s.urn = e.urn AND s.aspect = 'status' AND s.version = 0) AS has_status,
              (SELECT json_agg(json_build_object('p', pv.property_urn, 'g', pv.generation::text, 'v', pv."values"))
                 FROM property_value pv WHERE pv.entity_urn = e.urn) AS value_rows
       FROM entity e
       LEFT JOIN aspect a ON a.urn = e.urn AND a.aspect = 'structuredProperties' AND a.version = 0
       WHERE e.entity_type = 'dataset' AND e.urn LIKE $1`,
      [urnLike],
    ),
  );
  return new Map(
    rows.map((r) => [
      r.urn,
      {
        urn: r.urn,
        entries: r.metadata ? (r.metadata.properties ?? []).map((p) => ({ propertyUrn: p.propertyUrn, values: p.values })) : null,
        history: Number(r.history),
        hasStatus: r.has_status,
        rows: new Map((r.value_rows ?? []).map((v) => [v.p, { generation: v.g, values: v.v }])),
      },
    ]),
  );
}

/**
 * Problems with one dataset's storage, as readable lines (empty when sound): an entry
 * listed twice, or property_value rows that disagree with the aspect's entries.
 */
export function storageProblems(d: StoredDataset): string[] {
  const problems: string[] = [];
  const entries = d.entries ?? [];
  const named = entries.map((e) => e.propertyUrn);
  const duplicated = named.filter((p, i) => named.indexOf(p) !== i);
  if (duplicated.length > 0) problems.push(`${d.urn}: entries listed twice: ${duplicated.join(', ')}`);
  for (const e of entries) {
    const row = d.rows.get(e.propertyUrn);
    if (!row) problems.push(`${d.urn}: ${e.propertyUrn} has no property_value row`);
    else if (JSON.stringify(row.values) !== JSON.stringify(e.values)) {
      problems.push(`${d.urn}: ${e.propertyUrn} row ${JSON.stringify(row.values)} but aspect ${JSON.stringify(e.values)}`);
    }
  }
  for (const p of d.rows.keys()) if (!named.includes(p)) problems.push(`${d.urn}: property_value row for ${p} missing from the aspect`);
  return problems;
}

/** The number of property_value rows of a property, and of aspects still naming it. */
export async function traces(databaseUrl: string, propertyUrn: string): Promise<{ valueRows: number; aspects: number }> {
  return withClient(databaseUrl, async (c) => {
    const rows = await c.query<{ n: string }>('SELECT count(*) AS n FROM property_value WHERE property_urn = $1', [propertyUrn]);
    const aspects = await c.query<{ n: string }>(
      `SELECT count(*) AS n FROM aspect WHERE aspect = 'structuredProperties' AND version = 0
         AND metadata->'properties' @> jsonb_build_array(jsonb_build_object('propertyUrn', $1::text))`,
      [propertyUrn],
    );
    return { valueRows: Number(rows.rows[0]!.n), aspects: Number(aspects.rows[0]!.n) };
  });
}

/** The job table as the database has it (status, attempts, progress). */
export async function storedJobs(
  databaseUrl: string,
): Promise<Array<{ id: string; kind: string; status: string; attempts: number; total: number | null; done: number; payload: any; lastError: string | null }>> {
  const { rows } = await withClient(databaseUrl, (c) =>
    c.query('SELECT id::text AS id, kind, status, attempts, total, done, payload, last_error AS "lastError" FROM job ORDER BY id'),
  );
  return rows;
}

/**
 * Holds one entity's row locked as a write locks it (FOR UPDATE) until `release`: a write
 * that needs the row waits for it however loaded the machine is. A job that writes its
 * holders in order of urn stops at the batch holding it, part done.
 */
export async function holdEntityRow(databaseUrl: string, urn: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('BEGIN');
  const { rowCount } = await client.query('SELECT urn FROM entity WHERE urn = $1 FOR UPDATE', [urn]);
  let held = true;
  const release = async () => {
    if (!held) return;
    held = false;
    await client.query('ROLLBACK').finally(() => client.end());
  };
  if (rowCount !== 1) {
    await release();
    throw new Error(`no entity ${urn} to hold`);
  }
  return { release };
}

/** Sessions of the database waiting for a lock another session holds. */
export async function lockWaits(databaseUrl: string): Promise<number> {
  const { rows } = await withClient(databaseUrl, (c) =>
    c.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"),
  );
  return Number(rows[0]!.n);
}

/** Change-log rows the indexer has not handled yet. */
export async function pendingChanges(databaseUrl: string): Promise<number> {
  const { rows } = await withClient(databaseUrl, (c) => c.query<{ n: string }>('SELECT count(*) AS n FROM change_log WHERE indexed_on IS NULL'));
  return Number(rows[0]!.n);
}
