/**
 * Metadata tests across the catalog, as a user meets them (issue #28): a real server
 * with authentication and search, a dataset changed so that it fails a test, found
 * failing through `failingTests` over REST, GraphQL and the CLI (a subprocess) within
 * the documented delay; the compliance report over REST, GraphQL and `propgraph tests
 * report`; a run on demand over REST and `propgraph tests run`; a soft-deleted test
 * hidden from search and restored; a hard-deleted test gone from every result.
 */
import { rmSync } from 'node:fs';
import { graphql } from '../support/graphql.js';
import { enc, http } from '../support/http.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';
import { evaluationSettled } from '../support/testEvaluation.js';
import { ensureCliBuilt, runCli, tempDir, type CliResult } from './cliRunner.js';

/** How long after a write its results are searchable, at most (docs/metadata-tests.md, "Continuous evaluation"). */
const DOCUMENTED_DELAY_MS = 10_000;
const ROOT_TOKEN = `pgt_compliance_${Math.random().toString(36).slice(2)}`;
const V3 = '/openapi/v3';
const TEST = 'urn:li:test:has-description';
const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const ORDERS = dataset('shop.orders');
const ITEMS = dataset('shop.items');

const canRun = searchAvailableForTests();
if (!canRun) console.warn('testsCompliance: skipped (no Meilisearch for tests)');

(canRun ? describe : describe.skip)('metadata tests across the catalog, over HTTP and the CLI', () => {
  let server: TestServer;
  let home: string;
  const headers = { authorization: `Bearer ${ROOT_TOKEN}` };
  const gql = (query: string, variables: Record<string, unknown> = {}) => graphql(server.url, query, variables, '/api/graphql', headers);
  const cli = (args: string[]): Promise<CliResult> => runCli(args, { home, server: server.url, token: ROOT_TOKEN });
  const describeDataset = (urn: string, description?: string) =>
    http(server.url, 'POST', `${V3}/entity/dataset/${enc(urn)}/datasetProperties`, {
      query: { createIfNotExists: 'false' },
      json: { value: { name: urn.split(',')[1], ...(description ? { description } : {}) } },
      headers,
    });

  /** Where a test's failing entities are found, each way a user asks. */
  const failingOverRest = async (test: string) =>
    ((await http(server.url, 'GET', `${V3}/entity/dataset`, { query: { query: `failingTests:"${test}"`, count: '100' }, headers })).body.entities as Array<{ urn: string }>).map((e) => e.urn).sort();
  const failingOverGraphql = async (test: string) =>
    ((await gql('query f($t: String!) { scrollAcrossEntities(input: {types: [], query: "*", count: 100, orFilters: [{and: [{field: "failingTests", values: [$t]}]}]}) { searchResults { entity { urn } } } }', { t: test })).data
      .scrollAcrossEntities.searchResults as Array<{ entity: { urn: string } }>).map((r) => r.entity.urn).sort();
  const failingOverCli = async (test: string) => {
    const res = await cli(['search', '--filter', `failingTests=${test}`, '--json']);
    expect(res.stderr).toBe('');
    return (JSON.parse(res.stdout).results as Array<{ urn: string }>).map((r) => r.urn).sort();
  };

  // Jobs, the evaluator's position and the change log all at rest (test/support/testEvaluation.ts checks them in the order that cannot miss a job).
  const settled = () => evaluationSettled(server, { indexed: true });

  beforeAll(async () => {
    await ensureCliBuilt();
    server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN } });
    home = tempDir();
    const created = await http(server.url, 'POST', `${V3}/entity/dataset`, {
      json: [
        { urn: ORDERS, datasetProperties: { value: { name: 'shop.orders', description: 'Every order placed in the shop' } } },
        { urn: ITEMS, datasetProperties: { value: { name: 'shop.items' } } },
      ],
      headers,
    });
    expect(created.status).toBe(200);
    const test = await http(server.url, 'POST', `${V3}/entity/test/${enc(TEST)}/testInfo`, {
      query: { createIfNotExists: 'false' },
      json: { value: { name: 'Has a description', category: 'Documentation', definition: { type: 'JSON', json: JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'datasetProperties.description', operator: 'exists' }] }) } } },
      headers,
    });
    expect(test.status).toBe(200);
    await settled();
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test('a new test is evaluated on the datasets already there', async () => {
    const stored = await http(server.url, 'GET', `${V3}/entity/dataset/${enc(ITEMS)}/testResults`, { headers });
    expect(stored.status).toBe(200);
    expect(stored.body.testResults.value).toEqual({ passing: [], failing: [{ test: TEST, type: 'FAILURE', lastComputed: { time: expect.any(Number), actor: 'urn:li:corpuser:__propgraph_system' } }] });
    expect(await failingOverRest(TEST)).toEqual([ITEMS]);
  });

  test('a dataset changed so that it fails is found through failingTests over REST, GraphQL and the CLI within the documented delay', async () => {
    expect((await describeDataset(ORDERS)).status).toBe(200);
    const written = Date.now();
    const both = [ITEMS, ORDERS].sort();
    await waitFor('REST to find it failing', DOCUMENTED_DELAY_MS, async () => ((await failingOverRest(TEST)).includes(ORDERS) ? true : undefined), 50);
    expect(Date.now() - written).toBeLessThan(DOCUMENTED_DELAY_MS);
    expect(await failingOverRest(TEST)).toEqual(both);
    expect(await failingOverGraphql(TEST)).toEqual(both);
    expect(await failingOverCli(TEST)).toEqual(both);
    const facet = await gql('{ aggregateAcrossEntities(input: {types: [DATASET], query: "*", facets: ["failingTests", "hasFailingTests"]}) { facets { field aggregations { value count } } } }');
    expect(facet.data.aggregateAcrossEntities.facets).toEqual([
      { field: 'failingTests', aggregations: [{ value: TEST, count: 2 }] },
      { field: 'hasFailingTests', aggregations: [{ value: 'true', count: 2 }] },
    ]);
  });

  test('the report over REST, GraphQL and the CLI: counts, the failing entities, why one fails', async () => {
    await settled();
    const rest = await http(server.url, 'GET', `${V3}/tests/report`, { headers });
    expect(rest.status).toBe(200);
    expect(rest.body.tests).toEqual([
      expect.objectContaining({ test: expect.objectContaining({ urn: TEST, name: 'Has a description' }), passing: 0, failing: 2, notApplicable: 0, trend: [expect.objectContaining({ passing: 0, failing: 2 })] }),
    ]);
    const failing = await http(server.url, 'GET', `${V3}/tests/failing`, { query: { urn: TEST, count: '1' }, headers });
    expect(failing.body).toEqual({ total: 2, scrollId: expect.any(String), entities: [{ urn: ITEMS, entityType: 'dataset' }] });
    const next = await http(server.url, 'GET', `${V3}/tests/failing`, { query: { urn: TEST, count: '1', scrollId: failing.body.scrollId }, headers });
    expect(next.body).toEqual({ total: 2, entities: [{ urn: ORDERS, entityType: 'dataset' }] });

    const g = await gql(
      'query r($t: String!, $u: String!) { testReport(input: {urn: $t}) { tests { test { urn name } passing failing notApplicable failingEntities(input: {query: "orders"}) { total entities { urn } } } } explainTest(input: {test: $t, urn: $u}) { outcome rules { holds children { property operator holds actual } } } }',
      { t: TEST, u: ORDERS },
    );
    expect(g.errors).toBeUndefined();
    expect(g.data.testReport.tests).toEqual([{ test: { urn: TEST, name: 'Has a description' }, passing: 0, failing: 2, notApplicable: 0, failingEntities: { total: 1, entities: [{ urn: ORDERS }] } }]);
    expect(g.data.explainTest).toEqual({ outcome: 'FAILURE', rules: { holds: false, children: [{ property: 'datasetProperties.description', operator: 'exists', holds: false, actual: [] }] } });

    const table = await cli(['tests', 'report']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^TEST\s+PASSING\s+FAILING\s+N\/A\s+PASS RATE\s+URN$/);
    expect(table.stdout).toMatch(/^Has a description\s+0\s+2\s+0\s+0\.0%\s+urn:li:test:has-description$/m);
    const one = await cli(['tests', 'report', '--urn', 'has-description']);
    expect(one.stdout).toContain(`Failing (2 of 2):\n  ${ITEMS}\n  ${ORDERS}\n`);
    const json = await cli(['tests', 'report', '--json', '--urn', TEST]);
    expect(JSON.parse(json.stdout).tests).toEqual([
      expect.objectContaining({ test: { urn: TEST, name: 'Has a description', category: 'Documentation' }, passing: 0, failing: 2, notApplicable: 0, failingEntities: { total: 2, first: [ITEMS, ORDERS] } }),
    ]);
  });

  test('runs on demand over REST and the CLI are jobs to follow; results written by hand are put right', async () => {
    await http(server.url, 'POST', `${V3}/entity/dataset/${enc(ITEMS)}/testResults`, { query: { createIfNotExists: 'false' }, json: { value: { passing: [{ test: TEST, type: 'SUCCESS' }], failing: [] } }, headers });
    const started = await http(server.url, 'POST', `${V3}/tests/run`, { json: { testUrns: [TEST] }, headers });
    expect(started.status).toBe(202);
    const job = await waitFor('the run to finish', 60_000, async () => {
      const j = await http(server.url, 'GET', `${V3}/jobs/${started.body.jobId}`, { headers });
      return j.body.status === 'done' ? j.body : undefined;
    });
    expect(job).toMatchObject({ kind: 'evaluate-tests', done: 2, total: 2 });
    expect((await http(server.url, 'GET', `${V3}/entity/dataset/${enc(ITEMS)}/testResults`, { headers })).body.testResults.value.failing).toEqual([
      expect.objectContaining({ test: TEST, type: 'FAILURE' }),
    ]);
    const run = await cli(['tests', 'run', '--test', 'has-description']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Test run started \(job \d+\)\.\nTest run finished \(job \d+, 2 entities evaluated\)\.\n$/);
  });

  test('a soft-deleted test is hidden from search and restored; a hard-deleted one leaves no result', async () => {
    const status = (removed: boolean) => http(server.url, 'POST', `${V3}/entity/test/${enc(TEST)}/status`, { query: { createIfNotExists: 'false' }, json: { value: { removed } }, headers });
    expect((await status(true)).status).toBe(200);
    await waitFor('the soft-deleted test to leave search', 60_000, async () => ((await failingOverGraphql(TEST)).length === 0 ? true : undefined));
    expect((await http(server.url, 'GET', `${V3}/tests/report`, { headers })).body.tests).toEqual([]);
    expect((await status(false)).status).toBe(200);
    await waitFor('the restored test to come back', 60_000, async () => ((await failingOverGraphql(TEST)).length === 2 ? true : undefined));

    expect((await http(server.url, 'DELETE', `${V3}/entity/test/${enc(TEST)}`, { headers })).status).toBe(200);
    await settled();
    for (const urn of [ORDERS, ITEMS]) {
      const stored = await http(server.url, 'GET', `${V3}/entity/dataset/${enc(urn)}/testResults`, { headers });
      expect(stored.body.testResults.value).toEqual({ passing: [], failing: [] });
    }
    expect(await failingOverCli(TEST)).toEqual([]);
  });
});
