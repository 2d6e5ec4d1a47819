/**
 * The GraphQL API for "select all N matching" (issue #41), as docs/guide.md gives it to
 * the console: bulkEditStructuredProperties takes the search input (query, orFilters,
 * types) instead of URNs; its dry run answers the count before apply and the limit; the
 * run is a job followed with job(id): progress, the counts, and the refused entities
 * with their reasons; listJobs shows it without its inputs. The rules are tested at the
 * services (test/services/bulkEditSelection.test.ts); here, the GraphQL shapes.
 */
import { createDatasets, datasetUrnOf, defineProperty, setProperties } from '../support/fixtures.js';
import { graphql } from '../support/graphql.js';
import { indexCaughtUp } from '../support/http.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';

let server: TestServer;
const TIER = 'urn:li:structuredProperty:io.gqlbulk.tier';
const REVIEW = 'urn:li:structuredProperty:io.gqlbulk.review';
const bronze = Array.from({ length: 30 }, (_, i) => datasetUrnOf(`gqlbulk.b${String(i).padStart(2, '0')}`));
const gold = Array.from({ length: 5 }, (_, i) => datasetUrnOf(`gqlbulk.g${i}`));

const BULK = `mutation b($input: BulkEditStructuredPropertiesInput!) {
  bulkEditStructuredProperties(input: $input) { dryRun entities limit changed unchanged refused { urn reason } job { id } }
}`;
const JOB = `query j($id: String!) { job(id: $id) { status total done percentDone owner bulkEdit { changed unchanged refusedCount skipped changedSinceSelection refused { urn reason } } } }`;
const selectAll = { orFilters: [{ and: [{ field: 'structuredProperties.io.gqlbulk.tier', values: ['bronze'] }] }], structuredPropertyUrn: REVIEW, operation: 'SET', values: [{ stringValue: 'due' }] };

(searchAvailableForTests() ? describe : describe.skip)('bulk edit over all matching results (GraphQL)', () => {
  beforeAll(async () => {
    server = await startTestServer({ search: true });
    await defineProperty(server.url, 'io.gqlbulk.tier', { valueType: 'urn:li:dataType:svc.string' });
    await defineProperty(server.url, 'io.gqlbulk.review', { valueType: 'urn:li:dataType:svc.string', allowedValues: [{ value: { string: 'due' } }, { value: { string: 'done' } }] });
    await createDatasets(server.url, [...bronze, ...gold]);
    for (const urn of bronze) expect((await setProperties(server.url, urn, [{ propertyUrn: TIER, values: [{ string: 'bronze' }] }])).status).toBe(200);
    for (const urn of gold) expect((await setProperties(server.url, urn, [{ propertyUrn: TIER, values: [{ string: 'gold' }] }])).status).toBe(200);
    await indexCaughtUp(server.url);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  });

  test('the dry run over a search input counts every matching entity before apply, and states the limit', async () => {
    const res = await graphql(server.url, BULK, { input: { ...selectAll, dryRun: true } });
    expect(res.errors).toBeUndefined();
    expect(res.data.bulkEditStructuredProperties).toEqual({ dryRun: true, entities: 30, limit: 10000, changed: 30, unchanged: 0, refused: [], job: null });
  });

  test('the run is a job with progress and counts; listJobs shows it without its inputs', async () => {
    const res = await graphql(server.url, BULK, { input: selectAll });
    expect(res.errors).toBeUndefined();
    expect(res.data.bulkEditStructuredProperties).toMatchObject({ dryRun: false, entities: 30, limit: 10000 });
    const id = res.data.bulkEditStructuredProperties.job.id as string;
    const job = await waitFor('the bulk edit job', 60_000, async () => {
      const j = (await graphql(server.url, JOB, { id })).data.job;
      return j.status === 'DONE' ? j : undefined;
    });
    expect(job).toMatchObject({ total: 30, done: 30, percentDone: 100, bulkEdit: { changed: 30, unchanged: 0, refusedCount: 0, skipped: 0, changedSinceSelection: 0, refused: [] } });
    const listed = await graphql(server.url, `{ listJobs(input: { kind: "bulk-edit-values" }) { jobs { id owner bulkEdit { changed refused { urn } } } } }`);
    expect(listed.data.listJobs.jobs.find((j: { id: string }) => j.id === id)).toMatchObject({ bulkEdit: { changed: 30, refused: [] } });
  });

  test('a selection larger than the limit is refused before anything runs, naming the limit', async () => {
    const res = await graphql(server.url, BULK, { input: { structuredPropertyUrn: REVIEW, operation: 'SET', values: [{ stringValue: 'due' }], urns: Array.from({ length: 10_001 }, (_, i) => datasetUrnOf(`gqlbulk.none${i}`)) } });
    expect(res.errors?.[0]?.message).toMatch(/urns name 10001 entities; a bulk edit may change at most 10000/);
  });
});
