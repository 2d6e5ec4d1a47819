/**
 * REST search against a real Meilisearch (docs/contract.md §4, §6): the route's
 * parameters (query, count, sort, sortOrder, aspects), its answer's shape, and its
 * refusals. What a query matches, and every filter and facet rule, is the search
 * service's, tested in process in test/services/search.test.ts.
 */
import { createDatasets, datasetUrn, defineProperty, propertyUrn, searchRest, setValues, softDeleteProperty } from '../support/catalog.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';

const RETENTION = 'io.acryl.privacy.retentionTime';
const RETENTION_FIELD = 'structuredProperties.io_acryl_privacy_retentionTime';

const A = datasetUrn('db.orders');
const B = datasetUrn('db.customers');
const C = datasetUrn('db.payments', 'snowflake', 'DEV');

(searchAvailableForTests() ? describe : describe.skip)('REST search (docs/contract.md §4, §6)', () => {
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    server = await startTestServer({ search: true });
    base = server.url;
    await defineProperty(base, RETENTION, { valueType: 'number', allowedValues: [{ value: { double: 30 } }, { value: { double: 60 } }, { value: { double: 365 } }] });
    await createDatasets(base, [A, B, C]);
    await setValues(base, A, { [RETENTION]: [60] });
    await setValues(base, B, { [RETENTION]: [30, 60] });
  });

  afterAll(async () => {
    await server?.stop();
  });

  test('REST range query structuredProperties.<name>:>45 returns the datasets with a value above 45, with the requested aspects', async () => {
    const res = await searchRest(base, `${RETENTION_FIELD}:>45`, { aspects: ['datasetKey', 'structuredProperties'], count: '10', sort: 'urn', sortOrder: 'ASCENDING' });
    expect(res.status).toBe(200);
    expect(res.body.entities.map((e: { urn: string }) => e.urn)).toEqual([B, A]);
    const a = res.body.entities.find((e: { urn: string }) => e.urn === A);
    expect(a.datasetKey).toEqual({ value: { name: 'db.orders', platform: 'urn:li:dataPlatform:hive', origin: 'PROD' } });
    expect(res.text).toContain('{"double":60.0}');
    expect(res.body.scrollId).toBeUndefined();
  });

  test('REST sortOrder DESCENDING returns urns in reverse order', async () => {
    const res = await searchRest(base, '*', { sort: 'urn', sortOrder: 'DESCENDING' });
    expect(res.body.entities.map((e: { urn: string }) => e.urn)).toEqual([C, A, B].sort().reverse());
  });

  test('a malformed REST query is 400 with the position of the error', async () => {
    const res = await searchRest(base, `${RETENTION_FIELD}:>45 AND (`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Validation Error', message: expect.stringMatching(/position \d+/) });
  });

  test('a filter on a property that does not exist is 400 naming the closest existing one (docs/contract.md §12); an unknown field is 400', async () => {
    for (const q of [`${RETENTION_FIELD.slice(0, -2)}:1`, `NOT ${RETENTION_FIELD.slice(0, -2)}:1`]) {
      const res = await searchRest(base, q);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(`closest existing one is ${RETENTION_FIELD}`);
    }
    const bad = await searchRest(base, 'colour:red');
    expect(bad.status).toBe(400);
  });


  test('a filter on a soft-deleted property is 400 naming it (docs/contract.md §5)', async () => {
    await defineProperty(base, 'io.acryl.retired', { valueType: 'string' });
    await softDeleteProperty(base, 'io.acryl.retired');
    const res = await searchRest(base, 'structuredProperties.io_acryl_retired:x');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Validation Error', message: `Cannot filter on deleted Structured Property [${propertyUrn('io.acryl.retired')}]` });
  });
});
