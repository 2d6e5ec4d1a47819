/**
 * Jobs (issue #9): a property held by 10,000 datasets is hard-deleted; the server is
 * SIGKILLed while the cleanup job is running (part done) and restarted. The job ends
 * `done`, exactly once; no property_value row and no aspect holds the property, other
 * values are untouched, and the search index holds none of its values (asked of the
 * API after the name is re-created, and of Meilisearch itself for the old generation).
 */
import { INDEX_FORMAT } from '../../src/search/indexFormat.js';
import { indexUid } from '../../src/search/settings.js';
import { buildOnce, jobCompletions, startBuiltServer, type BuiltProcess } from '../support/builtServer.js';
import { datasetUrn, defineProperty, propertyUrn, upsertDatasetsWithValues, V3 } from '../support/catalog.js';
import { enc, http } from '../support/http.js';
import { engineCount, holdersOf } from '../support/indexedValues.js';
import { drainQueue } from '../support/load.js';
import { waitFor } from '../support/waitFor.js';
import { faultBackends, faultDeployment, type FaultDeployment } from '../support/faultServer.js';
import { pendingChanges, storageProblems, storedDatasets, storedJobs, traces, withClient } from '../support/storedValues.js';

const N = 10_000;
const GONE = 'jobs.gone';
const KEPT = 'jobs.kept';
const urnOf = (i: number) => datasetUrn(`jobs.d${String(i).padStart(5, '0')}`);

/** How often the server logged that it finished the job. */
describe.each(faultBackends(1))('hard delete of a property held by 10,000 datasets, server killed mid-cleanup, %s PostgreSQL', (backend) => {
  const report = (line: string) => console.log(`[hard delete job, ${backend}] ${line}`);
  let deployment: FaultDeployment;
  let env: Record<string, string>;
  let databaseUrl: string;
  let server: (BuiltProcess & { url: string }) | undefined;

  beforeAll(async () => {
    await buildOnce();
    deployment = await faultDeployment(backend, `fjob-${backend}`);
    ({ env, databaseUrl } = deployment);
  }, 180_000);

  afterAll(async () => {
    await deployment?.cleanup([server]);
  });

  test('the cleanup job survives a SIGKILL, completes once and leaves no value behind in the database or the index', async () => {
    const first = (server = await startBuiltServer(env));
    await defineProperty(first.url, GONE, { valueType: 'number', cardinality: 'SINGLE' });
    await defineProperty(first.url, KEPT, { valueType: 'number', cardinality: 'SINGLE' });
    const arranged = Date.now();
    const batches = Array.from({ length: N / 500 }, (_, b) => Array.from({ length: 500 }, (_, k) => b * 500 + k));
    await drainQueue(batches, 4, (batch) => upsertDatasetsWithValues(first.url, batch.map((i) => ({ urn: urnOf(i), values: { [GONE]: [i], [KEPT]: [i] } })), { async: true }));
    report(`10,000 datasets written in ${Date.now() - arranged} ms`);
    const [{ generation }] = await withClient(databaseUrl, async (c) => (await c.query('SELECT generation::text AS generation FROM structured_property WHERE urn = $1', [propertyUrn(GONE)])).rows);
    // The index holds every value before the delete, so "none after" means something.
    await waitFor('10,000 values indexed', 120_000, async () => ((await holdersOf(first.url, `structuredProperties.${GONE}`)) === N ? true : undefined), 500);
    report(`and indexed in ${Date.now() - arranged} ms`);

    expect((await http(first.url, 'DELETE', `${V3}/entity/structuredProperty/${enc(propertyUrn(GONE))}`)).status).toBe(200);
    const deletedAt = Date.now();
    const running = await waitFor('the cleanup job to be part done', 60_000, async () => {
      const jobs = (await http(first.url, 'GET', `${V3}/jobs`)).body.jobs as Array<Record<string, any>>;
      const job = jobs.find((j) => j.kind !== 'reindex' && j.propertyUrn === propertyUrn(GONE));
      // Well into the job, far from its end.
      return job?.status === 'running' && job.total === N && job.done >= N * 0.3 && job.done < job.total ? job : undefined;
    }, 50);
    first.child.kill('SIGKILL');
    await first.exited;
    report(`killed ${Date.now() - deletedAt} ms after the delete, job ${running.id} at ${running.done}/${running.total}`);
    expect(jobCompletions(first, running.id)).toBe(0);

    const restartedAt = Date.now();
    const second = (server = await startBuiltServer(env));
    const finished = await waitFor('the cleanup job to finish', 180_000, async () => {
      const job = (await http(second.url, 'GET', `${V3}/jobs/${running.id}`)).body;
      return job.status === 'done' || job.status === 'failed' ? job : undefined;
    }, 250);
    report(`job done ${Date.now() - restartedAt} ms after the restart (attempts ${finished.attempts})`);

    // Done, exactly once: one job for the property, claimed once per server, finished by the second.
    expect(finished).toMatchObject({ status: 'done', total: N, done: N, remaining: 0, lastError: null });
    expect(finished.attempts).toBe(2);
    expect((await storedJobs(databaseUrl)).filter((j) => j.payload?.propertyUrn === propertyUrn(GONE))).toHaveLength(1);
    expect(jobCompletions(second, running.id)).toBe(1);

    // The database: nothing of the property anywhere; the other property's 10,000 values intact.
    expect(await traces(databaseUrl, propertyUrn(GONE))).toEqual({ valueRows: 0, aspects: 0 });
    const stored = await storedDatasets(databaseUrl, 'urn:li:dataset:(urn:li:dataPlatform:hive,jobs.d%');
    expect(stored.size).toBe(N);
    const wrong: string[] = [];
    for (let i = 0; i < N; i++) {
      const d = stored.get(urnOf(i))!;
      wrong.push(...storageProblems(d));
      if (JSON.stringify(d.entries) !== JSON.stringify([{ propertyUrn: propertyUrn(KEPT), values: [{ double: i }] }])) wrong.push(`${d.urn}: ${JSON.stringify(d.entries)}`);
    }
    expect(wrong).toEqual([]);

    // The index: once the change log is drained, no document carries the old generation's field ...
    await waitFor('the indexer to drain the change log', 120_000, async () => ((await pendingChanges(databaseUrl)) === 0 ? true : undefined), 500);
    expect(await engineCount(deployment.meili(server!), indexUid(deployment.indexPrefix, 'dataset', INDEX_FORMAT), `sp.g${generation} EXISTS`)).toBe(0);
    expect(await holdersOf(second.url, `structuredProperties.${KEPT}`)).toBe(N);
    // ... and a property re-created under the same name starts empty.
    await defineProperty(second.url, GONE, { valueType: 'number', cardinality: 'SINGLE' });
    expect(await holdersOf(second.url, `structuredProperties.${GONE}`)).toBe(0);
  }, 420_000);
});
