/**
 * Issue #46 item 14 (and the catalog-of-record issue's "hard means gone"): after a
 * property's hard delete and its cleanup job, no job keeps the property's values: not a
 * bulk edit's inputs (its values, the entities it named), not the reasons of the
 * entities it refused (they quote values), not anything a job listing or a job read
 * answers. Read from the job table itself and from the API.
 */
import pg from 'pg';
import { createDatasets, datasetUrnOf, defineProperty, setProperties, V3, waitForJob, waitForJobs } from '../support/fixtures.js';
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let db: pg.Client;
const GONE = 'urn:li:structuredProperty:io.jobgone.owner';
const KEPT = 'urn:li:structuredProperty:io.jobgone.kept';
const datasets = Array.from({ length: 3 }, (_, i) => datasetUrnOf(`jobgone.t${i}`));

/** Job rows whose text holds the sentinel anywhere (payload, result, cursor, error). */
async function jobsHolding(sentinel: string): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM job WHERE strpos(job::text, $1) > 0', [sentinel]);
  return rows[0].n as number;
}

beforeAll(async () => {
  server = await startTestServer();
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  await defineProperty(server.url, 'io.jobgone.owner', { valueType: 'urn:li:dataType:svc.string' });
  await defineProperty(server.url, 'io.jobgone.kept', { valueType: 'urn:li:dataType:svc.string' });
  await createDatasets(server.url, datasets);
  expect((await setProperties(server.url, datasets[0]!, [{ propertyUrn: GONE, values: [{ string: 'SENTINEL-held' }] }])).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await db?.end();
  await server?.stop();
});

test("a bulk edit's values and refusals are gone from every job after the property's hard delete; another property's jobs keep theirs", async () => {
  const set = await http(server.url, 'POST', `${V3}/values/bulk`, { json: { urns: datasets, property: GONE, operation: 'set', values: ['SENTINEL-set'] } });
  expect(set.status).toBe(202);
  // A single-valued property given a second value: refused, the reason quoting both values.
  const add = await http(server.url, 'POST', `${V3}/values/bulk`, { json: { urns: [datasets[1]!], property: GONE, operation: 'add', values: ['SENTINEL-added'] } });
  const kept = await http(server.url, 'POST', `${V3}/values/bulk`, { json: { urns: [datasets[2]!], property: KEPT, operation: 'set', values: ['KEPT-value'] } });
  const added = await waitForJob(server.url, add.body.jobId);
  await waitForJob(server.url, set.body.jobId);
  await waitForJob(server.url, kept.body.jobId);
  expect(added.result).toMatchObject({ refusedCount: 1, refused: [{ urn: datasets[1], reason: expect.stringContaining('SENTINEL-added') }] });
  expect(await jobsHolding('SENTINEL-')).toBe(1);

  expect((await http(server.url, 'DELETE', `${V3}/entity/structuredProperty/${enc(GONE)}`)).status).toBe(200);
  const jobs = await waitForJobs(server.url, 120_000);
  expect(jobs.filter((j) => j.propertyUrn === GONE && j.kind === 'cleanup-property-values').map((j) => j.status)).toEqual(['done']);

  expect(await jobsHolding('SENTINEL-')).toBe(0);
  for (const id of [set.body.jobId, add.body.jobId]) {
    const job = await http(server.url, 'GET', `${V3}/jobs/${id}`);
    expect(job.status).toBe(200);
    expect(JSON.stringify(job.body)).not.toContain('SENTINEL-');
    expect(job.body).toMatchObject({ status: 'done', propertyUrn: GONE, payload: { propertyUrn: GONE, scrubbed: expect.any(String) } });
  }
  expect((await http(server.url, 'GET', `${V3}/jobs/${add.body.jobId}`)).body.result).toMatchObject({ refusedCount: 1 });
  // The other property's finished job was not touched (it kept no value once done, and says what it was).
  expect((await http(server.url, 'GET', `${V3}/jobs/${kept.body.jobId}`)).body.payload).toMatchObject({ propertyUrn: KEPT, operation: 'set', valueCount: 1 });
});
