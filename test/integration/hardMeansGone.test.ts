/**
 * Hard means gone, everywhere (issue #39 finding 3 and item 4; docs/contract.md §14):
 * a unique value is planted in every place a value can be copied to (the latest aspect
 * of one dataset, older versions of another, a schema field, a dataset that dropped it
 * before the delete, the search index, the value history), the property is hard-deleted
 * through the API, and once its cleanup is done a scan of every table of the database
 * (every row as text) and of every document of the server's search indexes finds the
 * value nowhere. The property defined again is a new one: nothing comes back.
 */
import { randomUUID } from 'node:crypto';
import { enc, http, indexCaughtUp } from '../support/http.js';
import { createDatasets, datasetUrnOf, defineProperty, setProperties, V3, waitForJobs } from '../support/fixtures.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { documentsHolding as documentsOf, tablesHolding as tablesOf } from '../support/sentinelScan.js';

const SENTINEL = `SENTINEL-${randomUUID()}`;
const P = 'urn:li:structuredProperty:gone.secret';
const definition = { qualifiedName: 'gone.secret', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.schemaField'], cardinality: 'MULTIPLE' };

(searchAvailableForTests() ? describe : describe.skip)('hard means gone (issue #39)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ search: true });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  const tablesHolding = (text: string) => tablesOf(server, text);
  const documentsHolding = (text: string) => documentsOf(server, text);

  test('after a hard delete and its cleanup, no table and no search document holds the deleted value; defined again, it does not come back', async () => {
    const [latest, older, dropped] = ['latest', 'older', 'dropped'].map((n) => datasetUrnOf(`gone.${n}`)) as [string, string, string];
    const field = `urn:li:schemaField:(${latest},customer_id)`;
    await defineProperty(server.url, 'gone.secret', definition);
    await createDatasets(server.url, [latest, older, dropped]);
    await setProperties(server.url, latest, [{ propertyUrn: P, values: [{ string: SENTINEL }] }]);
    await setProperties(server.url, older, [{ propertyUrn: P, values: [{ string: SENTINEL }] }]);
    await setProperties(server.url, older, [{ propertyUrn: P, values: [{ string: 'replaced' }] }]);
    await setProperties(server.url, dropped, [{ propertyUrn: P, values: [{ string: SENTINEL }] }]);
    await setProperties(server.url, dropped, []);
    const onField = await http(server.url, 'POST', `${V3}/entity/schemaField/${enc(field)}/structuredProperties`, { query: { createIfNotExists: 'false' }, json: { value: { properties: [{ propertyUrn: P, values: [{ string: SENTINEL }] }] } } });
    expect(onField.status).toBe(200);
    // Planted: in the database (latest and older versions) and in the index.
    await indexCaughtUp(server.url);
    expect(Object.keys(await tablesHolding(SENTINEL))).toEqual(expect.arrayContaining(['aspect', 'property_value']));
    expect(await documentsHolding(SENTINEL)).toBeGreaterThan(0);
    const history = await http(server.url, 'GET', `${V3}/history`, { query: { property: P, count: '100' } });
    expect(history.text).toContain(SENTINEL);

    expect((await http(server.url, 'DELETE', `${V3}/entity/structuredProperty/${enc(P)}`)).status).toBe(200);
    const jobs = await waitForJobs(server.url, 120_000);
    expect(jobs.filter((j) => j.kind === 'cleanup-property-values').map((j) => j.status)).toEqual(['done']);
    await indexCaughtUp(server.url);
    expect(await tablesHolding(SENTINEL)).toEqual({});
    expect(await documentsHolding(SENTINEL)).toBe(0);

    // Defined again: a new property, whose history and versions show none of the old one's values.
    await defineProperty(server.url, 'gone.secret', definition);
    for (const d of [latest, older, dropped]) {
      const h = await http(server.url, 'GET', `${V3}/history`, { query: { urn: d, count: '100' } });
      expect(h.status).toBe(200);
      expect(h.text).not.toContain(SENTINEL);
    }
    const firstVersion = await http(server.url, 'GET', `/aspects/${enc(older)}`, { query: { aspect: 'structuredProperties', version: '1' } });
    expect(firstVersion.status).toBe(200);
    expect(firstVersion.text).not.toContain(SENTINEL);
  }, 300_000);
});
