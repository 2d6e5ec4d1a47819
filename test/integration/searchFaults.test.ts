/**
 * Faults (docs/contract.md §6: "an index failure never fails or loses a committed write"): with
 * Meilisearch stopped, writes still succeed (at commit, without waiting), search
 * answers 503, and once Meilisearch is back every write is searchable within 30 s.
 */
import { startMeilisearch, type MeilisearchServer } from '../support/globalSetup.js';
import { SYSTEM_CALLER } from '../../src/services/caller.js';
import { datasetUrn, defineProperty, searchRest, setValues, upsertDatasetsWithValues } from '../support/catalog.js';
import { http } from '../support/http.js';
import { waitFor } from '../support/waitFor.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { expectEvery } from '../support/nonEmpty.js';

const VALUES = 1000;
const urnOf = (i: number) => datasetUrn(`fault.t${String(i).padStart(4, '0')}`);

(searchAvailableForTests() ? describe : describe.skip)('Meilisearch outage', () => {
  let meili: MeilisearchServer;
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    meili = await startMeilisearch();
    server = await startTestServer({ search: { url: meili.url, key: meili.masterKey } });
    base = server.url;
    await defineProperty(base, 'fault.n', { valueType: 'number', cardinality: 'SINGLE' });
    await upsertDatasetsWithValues(base, [{ urn: urnOf(0), values: { 'fault.n': [-1] } }]);
  });

  afterAll(async () => {
    await server?.stop();
    await meili?.destroy();
  });

  test('stop Meilisearch, write 1,000 values, start it again: every write is searchable within 30 s, none lost', async () => {
    await meili.stop();

    // 1,000 values while the engine is down: 990 in batches, 10 one by one; none waits for the index.
    const writesStarted = Date.now();
    for (let start = 0; start < VALUES - 10; start += 110) {
      const entries = [];
      for (let i = start; i < Math.min(VALUES - 10, start + 110); i++) entries.push({ urn: urnOf(i), values: { 'fault.n': [i] } });
      await upsertDatasetsWithValues(base, entries);
    }
    for (let i = VALUES - 10; i < VALUES; i++) {
      await upsertDatasetsWithValues(base, [{ urn: urnOf(i), values: {} }]);
      await setValues(base, urnOf(i), { 'fault.n': [i] });
    }
    expect(Date.now() - writesStarted).toBeLessThan(60_000);

    const health = await http(base, 'GET', '/health');
    expect(health.status).toBe(503);
    expect(health.body.search).toMatchObject({ ok: false, reachable: false });
    expect(health.body.changeLog.pending).toBeGreaterThan(0);
    const down = await searchRest(base, 'structuredProperties.fault_n:>=0');
    expect(down.status).toBe(503);
    expect(down.body.error).toBe('Service Unavailable');

    meili = await startMeilisearch({ dataDir: meili.dataDir, port: meili.port, masterKey: meili.masterKey });
    const total = await waitFor('every value to be searchable again', 30_000, async () => {
      const found = (await server.services.search.scroll(SYSTEM_CALLER, { types: [], count: 0, query: 'structuredProperties.fault_n:>=0' })).total;
      return found === VALUES ? found : undefined;
    });
    expect(total).toBe(VALUES);

    // None lost, none stale: every dataset carries its own value.
    const agg = await server.services.search.aggregate(SYSTEM_CALLER, { types: [], facets: ['structuredProperties.fault.n'], maxAggValues: 1000 });
    const values = agg.facets[0]!.aggregations;
    expect(values).toHaveLength(VALUES);
    expect(new Set(values.map((v) => v.value))).toEqual(new Set(Array.from({ length: VALUES }, (_, i) => `${i}.0`)));
    expectEvery(values, (v) => v.count === 1);
    expect((await http(base, 'GET', '/health')).status).toBe(200);
  }, 180_000);
});
