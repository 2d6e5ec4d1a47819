/**
 * Backup, restore and move (docs/operations.md): a server on the embedded default holds
 * N datasets (PROPGRAPH_BACKUP_DATASETS, 2,000 by default; BENCHMARKS.md has the
 * 100,000 run) with values, two versions of each (history), metadata tests and their
 * pushed results, and an access token.
 *
 * - `propgraph backup` while the server runs saves a file whose manifest counts match
 *   the database; a second backup taken while clients keep writing restores to a
 *   consistent state (every entity written is whole, none torn between tables);
 * - `propgraph restore --from` onto an external PostgreSQL (the move) and onto a fresh
 *   embedded DATA_DIR gives databases equal to the source, table by table and by
 *   checksum; a server started on the moved database answers searches as the source
 *   did, the token made on the source works there, and the policy stored there is in force;
 * - a restore onto a database holding data is refused and changes nothing (unless
 *   --force), and so is a cut-short file.
 */
import { copyFileSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { buildOnce, startBuiltServer, type BuiltProcess } from '../support/builtServer.js';
import { datasetUrn, defineProperty, propertiesAspect, propertyUrn, V3 } from '../support/catalog.js';
import { runCli } from '../e2e/cliRunner.js';
import { embeddedDatabaseUrl } from '../../src/embedded/postgresAuth.js';
import { faultDeployment, type FaultDeployment } from '../support/faultServer.js';
import { enc, http, indexCaughtUp } from '../support/http.js';
import { drainQueue, runClients } from '../support/load.js';
import { createTestDatabase } from '../support/postgres.js';
import { postgresAvailableForTests, searchAvailableForTests, sharedMeilisearch } from '../support/server.js';
import { withClient } from '../support/storedValues.js';
import { contentChecksum, tableCounts } from '../support/tableCounts.js';
import { tempDir } from '../support/tempDir.js';
import { dropIndexes } from '../support/indexedValues.js';
import { nonEmpty } from '../support/nonEmpty.js';

const N = Number(process.env.PROPGRAPH_BACKUP_DATASETS ?? 2000);
const BATCH = 1000;
const urnOf = (i: number) => datasetUrn(`bk.d${String(i).padStart(6, '0')}`);
const report = (line: string) => console.log(`[backup ${N}] ${line}`);

async function ok(res: Promise<{ status: number; text: string; body: any }>): Promise<any> {
  const r = await res;
  if (r.status >= 300) throw new Error(`HTTP ${r.status}: ${r.text.slice(0, 500)}`);
  return r.body;
}

/**
 * Properties and two metadata tests; N datasets written twice (the first values stay as
 * history), the second time with their test results; the first 200 also evaluated and
 * pushed by the server; an access token.
 */
async function writeCatalog(url: string): Promise<{ token: string }> {
  await defineProperty(url, 'bk.tier', { valueType: 'string', cardinality: 'SINGLE', allowedValues: [{ value: { string: 'gold' } }, { value: { string: 'silver' } }] });
  await defineProperty(url, 'bk.score', { valueType: 'number', cardinality: 'SINGLE' });
  await defineProperty(url, 'bk.owners', { valueType: 'string', cardinality: 'MULTIPLE' });
  const tests = [['bk-gold', 'gold'], ['bk-silver', 'silver']] as const;
  for (const [id, value] of tests) {
    const definition = { on: { types: ['dataset'] }, rules: { property: `structuredProperties.${propertyUrn('bk.tier')}`, operator: 'equals', values: [value] } };
    await ok(http(url, 'POST', `${V3}/entity/test/${enc(`urn:li:test:${id}`)}/testInfo`, { query: { createIfNotExists: 'false' }, json: { value: { name: id, category: 'Backup', definition: { type: 'JSON', json: JSON.stringify(definition) } } } }));
  }
  const tier = (i: number) => (i % 3 === 0 ? 'gold' : 'silver');
  const results = (i: number) => ({
    passing: tests.filter(([, v]) => v === tier(i)).map(([id]) => ({ test: `urn:li:test:${id}`, type: 'SUCCESS' })),
    failing: tests.filter(([, v]) => v !== tier(i)).map(([id]) => ({ test: `urn:li:test:${id}`, type: 'FAILURE' })),
  });
  let t = Date.now();
  const batches = Array.from({ length: Math.ceil(N / BATCH) }, (_, b) => Array.from({ length: Math.min(BATCH, N - b * BATCH) }, (_, k) => b * BATCH + k));
  for (const round of [1, 2]) {
    await drainQueue(batches, 3, (batch) =>
      ok(
        http(url, 'POST', `${V3}/entity/dataset`, {
          query: { async: 'true' },
          json: batch.map((i) => ({
            urn: urnOf(i),
            status: { value: { removed: false } },
            structuredProperties: { value: propertiesAspect({ 'bk.tier': [tier(i)], 'bk.score': [i * round], 'bk.owners': [`team${i % 7}`, `round${round}`] }) },
            ...(round === 2 ? { testResults: { value: results(i) } } : {}),
          })),
        }),
      ),
    );
  }
  report(`${N} datasets written twice in ${Date.now() - t} ms`);
  t = Date.now();
  const evaluated = Math.min(N, 200);
  // Twenty entities a request: each pushed result is a write that may wait for the index.
  const evaluations = Array.from({ length: Math.ceil(evaluated / 20) }, (_, b) => Array.from({ length: Math.min(20, evaluated - b * 20) }, (_, k) => urnOf(b * 20 + k)));
  await drainQueue(evaluations, 2, async (urns) => {
    await ok(http(url, 'POST', '/gms/test', { query: { action: 'batchEvaluate' }, json: { urns, push: true } }));
  });
  report(`tests evaluated on ${evaluated} datasets and their results pushed in ${Date.now() - t} ms`);
  // A policy (issue #40): an aspect like any other, so a backup carries it and a restore puts it back in force.
  await ok(http(url, 'POST', `${V3}/policies`, { json: { id: 'bk-policy', displayName: 'Backup readers', privileges: ['VIEW_ENTITY_PAGE'], actors: { groups: ['bk'] } } }));
  const created = await ok(http(url, 'POST', `${V3}/tokens`, { json: { name: 'backup-reader', scope: 'read' } }));
  return { token: created.accessToken as string };
}

/** What users see: totals of a few searches and facet counts, over GraphQL. */
async function searchAnswers(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const answers: unknown[] = [];
  for (const query of ['*', 'structuredProperties.bk.tier:gold', 'structuredProperties.bk.score:>100']) {
    const res = await ok(http(url, 'POST', '/api/graphql', { headers, json: { query: `{ scrollAcrossEntities(input: {types: [DATASET], query: ${JSON.stringify(query)}, count: 1}) { total } }` } }));
    if (res.errors || typeof res.data?.scrollAcrossEntities?.total !== 'number') throw new Error(`search ${query} failed: ${JSON.stringify(res).slice(0, 400)}`);
    answers.push({ query, total: res.data.scrollAcrossEntities.total });
  }
  const facets = await ok(http(url, 'POST', '/api/graphql', {
    headers,
    json: { query: `{ aggregateAcrossEntities(input: {types: [DATASET], query: "*", facets: ["structuredProperties.bk.tier", "structuredProperties.bk.owners"]}) { facets { field aggregations { value count } } } }` },
  }));
  if (facets.errors) throw new Error(`facets failed: ${JSON.stringify(facets.errors).slice(0, 400)}`);
  answers.push(facets.data);
  return answers;
}

(searchAvailableForTests() && postgresAvailableForTests() ? describe : describe.skip)(`backup and restore of ${N} datasets with values, tests and history`, () => {
  let source: FaultDeployment;
  let server: (BuiltProcess & { url: string }) | undefined;
  let moved: (BuiltProcess & { url: string }) | undefined;
  const prefix = `bkmove_${process.pid}_`;
  const home = tempDir('propgraph-bk-home-');

  beforeAll(async () => {
    await buildOnce();
    source = await faultDeployment('embedded', 'bk');
  }, 180_000);

  afterAll(async () => {
    await moved?.child.kill('SIGTERM');
    if (moved) await moved.exited;
    await source?.cleanup([server]);
    await dropIndexes(sharedMeilisearch(), prefix);
  });

  test('a backup restores equal to its database onto external and embedded PostgreSQL; the moved server answers the same', async () => {
    const first = (server = await startBuiltServer(source.env));
    let t = Date.now();
    const { token } = await writeCatalog(first.url);
    await indexCaughtUp(first.url, 600_000);
    report(`catalogue written and indexed in ${Date.now() - t} ms`);
    const sourceCounts = await tableCounts(source.databaseUrl);
    expect(sourceCounts).toMatchObject({ entity: N + 6, property_value: 3 * N });
    expect(sourceCounts.aspect).toBeGreaterThanOrEqual(4 * N);

    const file = path.join(source.dataDir, 'catalog.backup');
    t = Date.now();
    const taken = await runCli(['backup', '--out', file], { home, server: first.url });
    const backupMs = Date.now() - t;
    expect(taken.stderr).toBe('');
    expect(taken.code).toBe(0);
    const sha = /sha256 ([0-9a-f]{64})/.exec(taken.stdout)![1];
    for (const [table, count] of nonEmpty(Object.entries(sourceCounts))) expect(taken.stdout).toContain(`  ${table}: ${count} rows`);
    report(`backup: ${(statSync(file).size / 1e6).toFixed(1)} MB in ${backupMs} ms, sha256 ${sha}`);
    const sourceSum = await contentChecksum(source.databaseUrl);
    const sourceSearch = await searchAnswers(first.url);

    // The move: onto an external PostgreSQL, index rebuilt in the restoring process.
    const external = await createTestDatabase(process.env.PROPGRAPH_TEST_PG_URL!, `propgraph_bkmove_${process.pid}`);
    const meili = sharedMeilisearch();
    const externalEnv = { DATABASE_URL: external, MEILI_URL: meili.url, MEILI_API_KEY: meili.key, MEILI_INDEX_PREFIX: prefix, DATA_DIR: tempDir('propgraph-bkmove-') };
    t = Date.now();
    const restored = await runCli(['restore', '--from', file], { home, env: externalEnv });
    const restoreMs = Date.now() - t;
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain(`Database restored and checked (sha256 ${sha})`);
    expect(restored.stdout).toMatch(/Search index rebuilt from the database: \d+ entities/);
    report(`restore onto external PostgreSQL with the index rebuild: ${restoreMs} ms; it said:\n${restored.stdout}`);
    expect(await tableCounts(external)).toEqual(sourceCounts);
    expect(await contentChecksum(external)).toBe(sourceSum);

    // The same file onto a fresh embedded DATA_DIR.
    const embeddedDir = tempDir('propgraph-bk-embedded-');
    const intoEmbedded = await runCli(['restore', '--from', file], { home, env: { DATA_DIR: embeddedDir } });
    expect(intoEmbedded.code).toBe(0);
    // The restore made the cluster, and its password in the directory.
    const embeddedUrl = embeddedDatabaseUrl(embeddedDir);
    // Read with the cluster started again by a server, then stopped.
    const check = await startBuiltServer({ DATA_DIR: embeddedDir, MEILI_EMBEDDED: 'false' });
    expect(await contentChecksum(embeddedUrl)).toBe(sourceSum);
    check.child.kill('SIGTERM');
    await check.exited;

    // The moved server: same answers, the source's token works.
    moved = await startBuiltServer({ ...externalEnv, AUTH_ENABLED: 'true', RATE_LIMIT_PER_MINUTE: '10000000' });
    const auth = { authorization: `Bearer ${token}` };
    expect((await http(moved.url, 'GET', `${V3}/entity/dataset/${enc(urnOf(0))}/structuredProperties`, { headers: auth })).status).toBe(200);
    expect(await searchAnswers(moved.url, auth)).toEqual(sourceSearch);
    expect((await ok(http(moved.url, 'GET', `${V3}/policies/bk-policy`, { headers: auth }))).dataHubPolicyInfo).toMatchObject({ displayName: 'Backup readers', state: 'ACTIVE' });

    // A restore onto a database holding data is refused and changes nothing; --force replaces it.
    moved.child.kill('SIGTERM');
    await moved.exited;
    moved = undefined;
    const refused = await runCli(['restore', '--from', file], { home, env: externalEnv });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('already holds propgraph data');
    expect(await contentChecksum(external)).toBe(sourceSum);
    const cut = path.join(source.dataDir, 'cut.backup');
    copyFileSync(file, cut);
    truncateSync(cut, Math.floor(statSync(file).size * 0.6));
    const damaged = await runCli(['restore', '--from', cut, '--force'], { home, env: externalEnv });
    expect(damaged.code).not.toBe(0);
    expect(await contentChecksum(external)).toBe(sourceSum);
    const forced = await runCli(['restore', '--from', file, '--force'], { home, env: externalEnv });
    expect(forced.code).toBe(0);
    expect(await contentChecksum(external)).toBe(sourceSum);
  }, Math.max(1_800_000, N * 60));

  test('a backup taken while clients write restores whole: no entity torn between tables', async () => {
    const live = server!;
    let stop = false;
    let written = 0;
    const writers = runClients(4, async (client) => {
      for (let k = 0; !stop; k++) {
        const urn = datasetUrn(`bk.live${client}.${k}`);
        await ok(http(live.url, 'POST', `${V3}/entity/dataset`, { query: { async: 'true' }, json: [{ urn, status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: propertyUrn('bk.score'), values: [{ double: k }] }] } } }] }));
        written++;
      }
    });
    const file = path.join(source.dataDir, 'live.backup');
    let taken;
    try {
      while (written < 20) await new Promise((r) => setTimeout(r, 20));
      taken = await runCli(['backup', '--out', file], { home, server: live.url });
    } finally {
      stop = true;
      await writers;
    }
    expect(taken.code).toBe(0);
    const target = await createTestDatabase(process.env.PROPGRAPH_TEST_PG_URL!, `propgraph_bklive_${process.pid}`);
    const restored = await runCli(['restore', '--from', file], { home, env: { DATABASE_URL: target, MEILI_EMBEDDED: 'false', DATA_DIR: tempDir('propgraph-bklive-') } });
    expect(restored.code).toBe(0);
    // The two aspects each client wrote (the test evaluator may have added testResults beside them).
    const torn = await withClient(target, async (c) =>
      (
        await c.query(`
          SELECT e.urn FROM entity e
           WHERE e.urn LIKE 'urn:li:dataset:(urn:li:dataPlatform:hive,bk.live%'
             AND ((SELECT count(*) FROM aspect a WHERE a.urn = e.urn AND a.version = 0 AND a.aspect IN ('status', 'structuredProperties')) <> 2
               OR NOT EXISTS (SELECT 1 FROM property_value v WHERE v.entity_urn = e.urn)
               OR NOT EXISTS (SELECT 1 FROM change_log l WHERE l.urn = e.urn))`)
      ).rows,
    );
    const liveRows = await withClient(target, async (c) => Number((await c.query("SELECT count(*)::int AS n FROM entity WHERE urn LIKE 'urn:li:dataset:(urn:li:dataPlatform:hive,bk.live%'")).rows[0].n));
    report(`backup during writes: ${liveRows} of ${written} live entities in the snapshot, ${torn.length} torn`);
    expect(liveRows).toBeGreaterThan(0);
    expect(torn).toEqual([]);
  }, 600_000);
});
