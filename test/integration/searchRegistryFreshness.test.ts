/**
 * How fresh a search's view of the property registry is (docs/search.md): a change
 * committed through a server is seen by that server's next search at once; another
 * replica on the same database sees it within SEARCH_REGISTRY_RECHECK_MS, having
 * answered from its cache (no database round trip) until then.
 */
import { createDatasets, datasetUrn, defineProperty, searchRest, setValues, softDeleteProperty } from '../support/catalog.js';
import { postgresAvailableForTests, searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';

const WINDOW_MS = 4000;
const P = 'io.fresh.tier';
const D = datasetUrn('fresh.orders');
const query = `structuredProperties.${P.replaceAll('.', '_')}:gold`;

(postgresAvailableForTests() && searchAvailableForTests() ? describe : describe.skip)('registry freshness across two replicas', () => {
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    a = await startTestServer({ backend: 'external', search: true, env: { SEARCH_REGISTRY_RECHECK_MS: String(WINDOW_MS) } });
    b = await startTestServer({
      search: true,
      env: { DATABASE_URL: a.config.databaseUrl!, MEILI_INDEX_PREFIX: a.config.meiliIndexPrefix, SEARCH_REGISTRY_RECHECK_MS: String(WINDOW_MS), BACKGROUND_WORKERS: 'false' },
    });
    await defineProperty(a.url, P, { valueType: 'string' });
    await createDatasets(a.url, [D]);
    await setValues(a.url, D, { [P]: ['gold'] });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  test('a soft delete is refused at once where it was made, by the other replica after the recheck time, and a restore likewise', async () => {
    const warmed = Date.now();
    const before = await searchRest(b.url, query);
    expect(before.status).toBe(200);
    expect(before.body.entities.map((e: { urn: string }) => e.urn)).toEqual([D]);

    await softDeleteProperty(a.url, P);
    const onA = await searchRest(a.url, query);
    expect(onA.status).toBe(400);
    expect(onA.body.message).toBe(`Cannot filter on deleted Structured Property [urn:li:structuredProperty:${P}]`);

    // Still inside B's window (when the machine was quick enough to get here): B answers
    // from its cache without asking the database.
    const stale = await searchRest(b.url, query);
    if (Date.now() - warmed < WINDOW_MS - 1000) expect(stale.status).toBe(200);

    await new Promise((r) => setTimeout(r, Math.max(0, warmed + WINDOW_MS + 200 - Date.now())));
    const onB = await searchRest(b.url, query);
    expect(onB.status).toBe(400);
    expect(onB.body.message).toBe(onA.body.message);

    const restoredAt = Date.now();
    await softDeleteProperty(a.url, P, false);
    expect((await searchRest(a.url, query)).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, restoredAt + WINDOW_MS + 200 - Date.now())));
    const back = await searchRest(b.url, query);
    expect(back.status).toBe(200);
    expect(back.body.entities.map((e: { urn: string }) => e.urn)).toEqual([D]);
  });
});
