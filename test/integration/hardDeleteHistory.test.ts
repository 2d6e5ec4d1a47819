/**
 * Issue #29, item 9: hard means gone. After a property's hard delete and its cleanup
 * job, no row of the aspect table holds the property any more: not the latest
 * structuredProperties aspect, not any older version (1..n, the history), including
 * entities whose value was removed before the delete. Other properties' values stay,
 * in every version. A breaking version change's cleanup takes the dropped values out of
 * the history of the entities it cleans the same way. Read from the table itself.
 */
import pg from 'pg';
import { createDatasets, datasetUrnOf, defineProperty, setProperties, V3, waitForJobs } from '../support/fixtures.js';
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let db: pg.Client;
const TIER = 'urn:li:structuredProperty:io.hist.tier';
const KEEP = 'urn:li:structuredProperty:io.hist.keep';
const RETYPED = 'urn:li:structuredProperty:io.hist.retyped';
const datasets = Array.from({ length: 12 }, (_, i) => datasetUrnOf(`hist.t${i}`));

/** structuredProperties rows (any version) whose JSON names the property, and those naming a value. */
async function rowsNaming(propertyUrn: string): Promise<number> {
  const { rows } = await db.query("SELECT count(*)::int AS n FROM aspect WHERE aspect = 'structuredProperties' AND metadata::text LIKE $1", [`%${propertyUrn}"%`]);
  return rows[0].n as number;
}

beforeAll(async () => {
  server = await startTestServer();
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  await defineProperty(server.url, 'io.hist.tier', { valueType: 'urn:li:dataType:svc.string' });
  await defineProperty(server.url, 'io.hist.keep', { valueType: 'urn:li:dataType:svc.string' });
  await defineProperty(server.url, 'io.hist.retyped', { valueType: 'urn:li:dataType:svc.string', version: '20260101000000' });
  await createDatasets(server.url, datasets);
  // Three versions each: the history holds the earlier values.
  for (const round of ['one', 'two', 'three']) {
    for (const d of datasets) {
      expect((await setProperties(server.url, d, [{ propertyUrn: TIER, values: [{ string: `tier-${round}` }] }, { propertyUrn: KEEP, values: [{ string: `keep-${round}` }] }, { propertyUrn: RETYPED, values: [{ string: `old-${round}` }] }])).status).toBe(200);
    }
  }
  // One entity whose tier value was removed before the delete: only its history holds it.
  expect((await setProperties(server.url, datasets[0]!, [{ propertyUrn: KEEP, values: [{ string: 'keep-four' }] }, { propertyUrn: RETYPED, values: [{ string: 'old-four' }] }])).status).toBe(200);
}, 180_000);
afterAll(async () => {
  await db?.end();
  await server?.stop();
});

test('before: the history holds the values (the arrangement is what the test needs)', async () => {
  expect(await rowsNaming(TIER)).toBe(datasets.length * 3);
});

test('after a hard delete and its cleanup job, no aspect row of any version holds the property; other values stay in every version', async () => {
  const keepBefore = await rowsNaming(KEEP);
  expect((await http(server.url, 'DELETE', `${V3}/entity/structuredProperty/${enc(TIER)}`)).status).toBe(200);
  const jobs = await waitForJobs(server.url, 120_000);
  expect(jobs.filter((j) => j.propertyUrn === TIER).map((j) => j.status)).toEqual(['done']);
  expect(await rowsNaming(TIER)).toBe(0);
  const { rows } = await db.query("SELECT count(*)::int AS n FROM aspect WHERE aspect = 'structuredProperties' AND metadata::text LIKE '%tier-%'");
  expect(rows[0].n).toBe(0);
  // The cleanup wrote a new latest version per entity, keeping what else it held: every older row that named KEEP still does.
  expect(await rowsNaming(KEEP)).toBeGreaterThanOrEqual(keepBefore);
  const { rows: kept } = await db.query("SELECT count(*)::int AS n FROM aspect WHERE aspect = 'structuredProperties' AND metadata::text LIKE '%keep-one%'");
  expect(kept[0].n).toBe(datasets.length);
});

test('a breaking version change: its cleanup takes the dropped values out of the history of every entity it cleans', async () => {
  const res = await http(server.url, 'POST', `${V3}/entity/structuredProperty/${enc(RETYPED)}/propertyDefinition`, {
    query: { createIfNotExists: 'false' },
    json: { value: { qualifiedName: 'io.hist.retyped', valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'], version: '20260202000000' } },
  });
  expect(res.status).toBe(200);
  await waitForJobs(server.url, 120_000);
  const { rows } = await db.query("SELECT count(*)::int AS n FROM aspect WHERE aspect = 'structuredProperties' AND metadata::text LIKE '%old-%'");
  expect(rows[0].n).toBe(0);
  // Values written under the new version are kept.
  expect((await setProperties(server.url, datasets[1]!, [{ propertyUrn: RETYPED, values: [{ double: 5 }] }])).status).toBe(200);
  expect(await rowsNaming(RETYPED)).toBeGreaterThan(0);
});
