/**
 * What one request of DataHub's web app costs the database. Its search page asks, for each
 * of ten results, the entity's privileges and a dozen aspects level by level, and for each
 * structured property value the definition's created and lastModified. Each of those was a
 * statement of its own: 98 for one search (the policies' counter read 15 times, the
 * aspects read once per aspect name, the definitions' audits 60 times). A request now reads
 * the policies' counter once, the aspects of a level in one statement per entity type, and
 * the audits of a level's definitions in one.
 */
import { datasetUrn, defineProperty, setValues, upsertDatasetsWithValues } from '../support/catalog.js';
import { http, indexCaughtUp } from '../support/http.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { loadWebAppOperations } from '../support/webAppOperations.js';

const PROPERTY = 'cost.tier';
const RESULTS = 10;
const REQUESTS = 5;

(searchAvailableForTests() ? describe : describe.skip)("statements per request of DataHub's web app's search page", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ search: true });
    // Defined without audit stamps of its own, as REST v3 and the CLI write definitions: its created and lastModified are read from the history.
    await defineProperty(server.url, PROPERTY, { valueType: 'string', cardinality: 'SINGLE' });
    await upsertDatasetsWithValues(server.url, Array.from({ length: RESULTS + 2 }, (_, i) => ({ urn: datasetUrn(`cost.t${i}`), values: { [PROPERTY]: ['gold'] } })));
    await indexCaughtUp(server.url);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function statementCounts(): Promise<Map<string, number>> {
    const text = (await http<string>(server.url, 'GET', '/metrics', { headers: { accept: 'text/plain' } })).text;
    const byOperation = new Map<string, number>();
    for (const line of text.split('\n')) {
      const m = /^propgraph_db_statement_duration_seconds_count\{operation="([^"]+)"\} (\d+)/.exec(line);
      if (m) byOperation.set(m[1]!, Number(m[2]));
    }
    return byOperation;
  }

  test('the policies once, the aspects of a level in one statement per entity type, the definitions audited in one', async () => {
    const op = loadWebAppOperations().operations.find((o) => o.name === 'getSearchResultsForMultiple')!;
    const body = {
      operationName: op.name,
      query: op.document,
      variables: {
        input: {
          types: [], query: '*', start: 0, count: RESULTS, filters: [], viewUrn: null, sortInput: null,
          orFilters: [{ and: [{ field: `structuredProperties.${PROPERTY}`, values: ['gold'] }] }],
          searchFlags: { getSuggestions: true, includeStructuredPropertyFacets: true, skipHighlighting: false },
        },
      },
    };
    const search = async () => {
      const res = await http(server.url, 'POST', '/api/graphql', { json: body });
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
      return res.body.data.searchAcrossEntities;
    };
    const first = await search();
    expect(first.searchResults).toHaveLength(RESULTS);
    // Each result's value, with its property's definition and the definition's audit stamps.
    expect(JSON.stringify(first.searchResults[0])).toContain(`"qualifiedName":"${PROPERTY}"`);
    expect(JSON.stringify(first.searchResults[0])).toMatch(/"created":\{"time":\d+/);
    const before = await statementCounts();
    for (let i = 0; i < REQUESTS; i++) await search();
    const after = await statementCounts();
    const per = (operation: string) => ((after.get(operation) ?? 0) - (before.get(operation) ?? 0)) / REQUESTS;
    expect(per('policy_epoch')).toBe(1);
    expect(per('read_entity_page')).toBeLessThanOrEqual(6);
    // Unnamed reads, the server's background loops' included.
    expect(per('select')).toBeLessThan(12);
  }, 120_000);

  test('writes sent at once share the reads of the policies\' counter', async () => {
    // The datasets made above; a read sent before a write asked is never shared with it (unit/sharedRead.test.ts).
    const WRITES = RESULTS + 2;
    const urns = Array.from({ length: WRITES }, (_, i) => datasetUrn(`cost.t${i}`));
    // Keep-alive connections first, so the writes below leave together.
    await Promise.all(urns.map((urn) => setValues(server.url, urn, { [PROPERTY]: ['silver'] }, { async: true })));
    const before = await statementCounts();
    await Promise.all(urns.map((urn) => setValues(server.url, urn, { [PROPERTY]: ['bronze'] }, { async: true })));
    const after = await statementCounts();
    const reads = (after.get('policy_epoch') ?? 0) - (before.get('policy_epoch') ?? 0);
    // One read per pass of the event loop in which writes asked; each was one per write.
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(WRITES / 2);
  }, 120_000);
});
