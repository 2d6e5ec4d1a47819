/**
 * system-update (docs/contract.md §5): rebuilds every search index from the database as a job,
 * with progress; an index that lost documents (or kept fields of deleted properties)
 * comes back exactly as the database says, and searches keep working meanwhile.
 */
import { SYSTEM_CALLER } from '../../src/services/caller.js';
import { documentId } from '../../src/search/documents.js';
import { findProperty } from '../../src/store/propertyRegistry.js';
import { datasetUrn, defineProperty, hardDelete, propertyUrn, searchRest, upsertDatasetsWithValues, V3 } from '../support/catalog.js';
import { waitForJob } from '../support/fixtures.js';
import { http, indexCaughtUp } from '../support/http.js';
import { waitFor } from '../support/waitFor.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';

const N = 300;
const urnOf = (i: number) => datasetUrn(`rebuild.t${String(i).padStart(4, '0')}`);

(searchAvailableForTests() ? describe : describe.skip)('system-update rebuilds the search indexes', () => {
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    server = await startTestServer({ search: true });
    base = server.url;
    await defineProperty(base, 'rebuild.n', { valueType: 'number', cardinality: 'SINGLE' });
    await defineProperty(base, 'rebuild.gone', { valueType: 'string', cardinality: 'SINGLE' });
    await upsertDatasetsWithValues(base, Array.from({ length: N }, (_, i) => ({ urn: urnOf(i), values: { 'rebuild.n': [i], 'rebuild.gone': ['x'] } })));
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  test('POST /v3/system/update queues one rebuild job whose progress GET /v3/jobs/{id} shows; the index is whole again', async () => {
    const engine = server.search.engine!;
    const goneAttr = `sp.g${(await findProperty(server.database.db, propertyUrn('rebuild.gone')))!.generation}`;
    await hardDelete(base, 'structuredProperty', propertyUrn('rebuild.gone'));
    // The delete's cleanup job rewrites the datasets, and the indexer then writes their documents
    // again: both must be over before documents are lost behind the service's back, or they come back.
    await waitFor('the cleanup job to finish', 60_000, async () => {
      const jobs = (await http(base, 'GET', `${V3}/jobs`)).body.jobs as Array<{ status: string }>;
      return jobs.length > 0 && jobs.every((j) => j.status === 'done') ? true : undefined;
    });
    await indexCaughtUp(base);
    // Lose a third of the documents behind the service's back.
    await engine.write([{ type: 'dataset', upserts: [], deletes: Array.from({ length: 100 }, (_, i) => documentId(urnOf(i))) }]);
    expect((await server.services.search.scroll(SYSTEM_CALLER, { types: [], count: 0 })).total).toBe(N - 100);

    const res = await http(base, 'POST', `${V3}/system/update`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ jobId: expect.stringMatching(/^\d+$/), created: true, job: `/jobs/${res.body.jobId}` });
    const again = await http(base, 'POST', `${V3}/system/update`);
    if (again.body.created === false) expect(again.body.jobId).toBe(res.body.jobId);
    // Searches keep answering while the rebuild runs.
    expect((await searchRest(base, 'structuredProperties.rebuild_n:>=0', { count: '1' })).status).toBe(200);

    const job = await waitForJob(base, res.body.jobId);
    // The N datasets and the live property's definition (definitions are searchable too).
    expect(job).toMatchObject({ status: 'done', total: N + 1, done: N + 1 });
    if (again.body.created) await waitForJob(base, again.body.jobId);

    const all = await server.services.search.scroll(SYSTEM_CALLER, { types: [], count: 1000 });
    expect(all.total).toBe(N);
    expect(new Set(all.entities.map((e) => e.urn))).toEqual(new Set(Array.from({ length: N }, (_, i) => urnOf(i))));
    // The rebuilt documents hold nothing of the deleted property, even before its cleanup job touched them.
    const raw = await engine.search([{ type: 'dataset', filter: [`${goneAttr} EXISTS`], limit: 1 }]);
    expect(raw.results[0]!.hits).toEqual([]);
  });

  test('writes made during a rebuild are not lost', async () => {
    const res = await http(base, 'POST', `${V3}/system/update`);
    const extra = datasetUrn('rebuild.during');
    await upsertDatasetsWithValues(base, [{ urn: extra, values: { 'rebuild.n': [9999] } }]);
    await waitForJob(base, res.body.jobId);
    await indexCaughtUp(base);
    const found = await searchRest(base, 'structuredProperties.rebuild_n:9999');
    expect(found.body.entities.map((e: { urn: string }) => e.urn)).toEqual([extra]);
  });

  test('with SEARCH_INDEX_BUILDER_MAPPINGS_REINDEX and ENABLE_STRUCTURED_PROPERTIES_SYSTEM_UPDATE set, a server rebuilds at start-up', async () => {
    const other = await startTestServer({
      search: true,
      env: { SEARCH_INDEX_BUILDER_MAPPINGS_REINDEX: 'true', ENABLE_STRUCTURED_PROPERTIES_SYSTEM_UPDATE: 'true' },
    });
    try {
      const jobs = await waitFor('a finished reindex job', 30_000, async () => {
        const listed: Array<{ kind: string; status: string }> = (await http(other.url, 'GET', `${V3}/jobs`)).body.jobs;
        return listed.some((j) => j.kind === 'search-index-build' && j.status === 'done') ? listed : undefined;
      }, 100);
      expect(jobs).toContainEqual(expect.objectContaining({ kind: 'search-index-build', status: 'done' }));
    } finally {
      await other.stop();
    }
  });
});
