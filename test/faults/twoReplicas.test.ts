/**
 * Two replicas (issue #9): two `node dist/main.js` processes on one PostgreSQL database
 * and one Meilisearch (same index prefix), an @apollo/gateway spreading the subgraph's
 * requests over both, and writes going through the gateway (GraphQL
 * upsertStructuredProperties) and straight to each replica (REST JSON-patch). Hard
 * deletes on both replicas queue cleanup jobs; two long ones keep both job workers
 * busy, one each, when the replica holding the indexer lease is SIGKILLed mid-load. Its
 * failed requests are retried on the survivor.
 *
 * Asserted: only one replica holds the indexer lease at a time and the survivor takes it
 * over; the dead replica's job passes to the survivor; every cleanup job ends done and
 * is completed by exactly one replica, once; no acknowledged write is lost; the final
 * index equals the database for every dataset (no missing, no stale value, no value of a
 * deleted property).
 */
import { buildOnce, jobCompletions, startBuiltServer, type BuiltProcess } from '../support/builtServer.js';
import { datasetUrn, defineProperty, propertyUrn, upsertDatasetsWithValues, V3 } from '../support/catalog.js';
import { startRoundRobinGateway, type Gateway } from '../support/gateway.js';
import { enc } from '../support/http.js';
import { engineCount, holdersOf, indexedPairs, searchTotal } from '../support/indexedValues.js';
import { INDEX_FORMAT } from '../../src/search/indexFormat.js';
import { indexUid } from '../../src/search/settings.js';
import { attempt, runClients, statusCounts, type Outcome } from '../support/load.js';
import { sleep, waitFor } from '../support/waitFor.js';
import { faultServerEnv, stopFaultServers } from '../support/faultServer.js';
import { createTestDatabase } from '../support/postgres.js';
import { postgresAvailableForTests, searchAvailableForTests, sharedMeilisearch } from '../support/server.js';
import { pendingChanges, storageProblems, storedDatasets, storedJobs, traces, withClient } from '../support/storedValues.js';
import { expectEvery } from '../support/nonEmpty.js';

const DATASETS = 240;
const CLIENTS = 12;
const LOADED = 'rep.n';
/** Properties every dataset holds at first, hard-deleted during the load (two on each replica). */
const DELETED = ['rep.gone0', 'rep.gone1', 'rep.gone2', 'rep.gone3'];
/** Properties of 6,000 more datasets, deleted together just before the kill: one long job per worker (each runs some 8 s, caught part done within 3 s in CI). */
const BULK = ['rep.bulk0', 'rep.bulk1'];
const BULK_DATASETS = 6_000;
const urnOf = (i: number) => datasetUrn(`rep.d${String(i).padStart(3, '0')}`);
const bulkUrnOf = (i: number) => datasetUrn(`rep.b${String(i).padStart(5, '0')}`);
const report = (line: string) => console.log(`[two replicas] ${line}`);

type Replica = BuiltProcess & { url: string; name: string };

const UPSERT = `mutation u($asset: String!, $property: String!, $value: Float!) {
  upsertStructuredProperties(input: {assetUrn: $asset, structuredPropertyInputParams: [{structuredPropertyUrn: $property, values: [{numberValue: $value}]}]}) {
    properties { structuredProperty { urn } }
  }
}`;

function logLines(replica: Replica, msg: string): Array<Record<string, unknown>> {
  return replica.output
    .join('')
    .split('\n')
    .filter((line) => line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

(postgresAvailableForTests() && searchAvailableForTests() ? describe : describe.skip)('two replicas on one database and one Meilisearch, behind a gateway', () => {
  const prefix = `frep_${process.pid}_`;
  let databaseUrl: string;
  let replicas: Replica[] = [];
  let gateway: Gateway | undefined;

  beforeAll(async () => {
    await buildOnce();
    databaseUrl = await createTestDatabase(process.env.PROPGRAPH_TEST_PG_URL!, `propgraph_frep_${process.pid}`);
    const env = (name: string) => faultServerEnv(databaseUrl, prefix, `frep-${name}`);
    // Started together: they also race for the migrations and the indexes.
    replicas = await Promise.all(['A', 'B'].map(async (name) => ({ ...(await startBuiltServer(env(name))), name })));
  }, 180_000);

  afterAll(async () => {
    await gateway?.stop();
    await stopFaultServers(replicas, prefix);
  });

  test('one indexer at a time, no acknowledged write lost, index equals database, each job completed once', async () => {
    const [a, b] = replicas as [Replica, Replica];
    let live: Replica[] = [a, b];
    gateway = await startRoundRobinGateway(() => live.map((r) => `${r.url}/api/graphql`));

    for (const name of [LOADED, ...DELETED, ...BULK]) await defineProperty(a.url, name, { valueType: 'number', cardinality: 'SINGLE' });
    const initial = Object.fromEntries([LOADED, ...DELETED].map((name) => [name, [-1]]));
    await upsertDatasetsWithValues(b.url, Array.from({ length: DATASETS }, (_, i) => ({ urn: urnOf(i), values: initial })));
    const bulk = Object.fromEntries(BULK.map((name) => [name, [1]]));
    const batches = Array.from({ length: BULK_DATASETS / 1000 }, (_, k) => Array.from({ length: 1000 }, (_, j) => ({ urn: bulkUrnOf(k * 1000 + j), values: bulk })));
    await Promise.all(batches.map((batch, k) => upsertDatasetsWithValues(replicas[k % 2]!.url, batch, { async: true })));
    const generations = new Map(
      await withClient(databaseUrl, async (c) =>
        (await c.query<{ urn: string; generation: string }>('SELECT urn, generation::text AS generation FROM structured_property')).rows.map((r) => [r.urn, r.generation] as const),
      ),
    );

    // Who leads the indexer, as each replica reports it.
    const leaders = async (among: Replica[]) => {
      const states = await Promise.all(among.map(async (r) => ((await attempt(r.url, 'GET', '/health')).body?.search?.indexer?.leader === true ? r.name : null)));
      return states.filter((s): s is string => s !== null);
    };
    const leaderSamples: string[][] = [];

    // The load: each client owns datasets and retries a write until acknowledged; writes rotate over
    // the gateway and the two replicas' REST routes.
    const acknowledged = new Map<string, number>();
    const outcomes: Array<Outcome & { via: string }> = [];
    let stop = false;
    let value = 0;
    let turn = 0;
    const writeOnce = async (urn: string, v: number): Promise<boolean> => {
      const via = turn++ % 3;
      if (via === 0) {
        const o = await attempt(gateway!.url, 'POST', '/', { json: { query: UPSERT, variables: { asset: urn, property: propertyUrn(LOADED), value: v } } });
        outcomes.push({ ...o, via: 'gateway' });
        return o.status === 200 && !o.body?.errors && o.body?.data?.upsertStructuredProperties !== null;
      }
      const target = live[(via - 1) % live.length]!;
      const o = await attempt(target.url, 'PATCH', `${V3}/entity/dataset/${enc(urn)}/structuredProperties`, {
        query: { async: 'true' },
        json: {
          patch: [{ op: 'add', path: `/properties/${propertyUrn(LOADED)}`, value: { propertyUrn: propertyUrn(LOADED), values: [{ double: v }] } }],
          arrayPrimaryKeys: { properties: ['propertyUrn'] },
        },
      });
      outcomes.push({ ...o, via: `rest ${target.name}` });
      return o.status === 200;
    };
    const load = runClients(CLIENTS, async (client) => {
      for (let k = 0; !stop; k++) {
        const urn = urnOf(client + CLIENTS * (k % (DATASETS / CLIENTS)));
        const v = value++;
        for (let tries = 0; !(await writeOnce(urn, v)); tries++) {
          if (tries > 50) throw new Error(`write ${urn}=${v} never acknowledged`);
          await sleep(100);
        }
        acknowledged.set(urn, v);
      }
    });

    try {
      await sleep(1_000);
      leaderSamples.push(await leaders([a, b]));
      // Hard deletes on both replicas: four cleanup jobs for two job workers.
      for (const [i, name] of DELETED.entries()) {
        const via = i % 2 === 0 ? a : b;
        const res = await attempt(via.url, 'DELETE', `${V3}/entity/structuredProperty/${enc(propertyUrn(name))}`);
        // A delete not answered 200 fails with the replica's own log lines, less the load's access lines.
        if (res.status !== 200) {
          const log = via.output.join('').split('\n').filter((l) => !/"route":"(\/openapi\/v3\/entity\/:entityName\/:urn\/:aspect|\/api\/graphql|\/health)"/.test(l));
          throw new Error(`DELETE ${name} through ${via.name}: ${res.status} ${res.error ?? res.text.slice(0, 300)} after ${res.ms} ms; its log, less the load's access lines, ends:\n${log.slice(-60).join('\n')}`);
        }
        leaderSamples.push(await leaders([a, b]));
        await sleep(500);
      }
      for (let i = 0; i < 4; i++) {
        leaderSamples.push(await leaders([a, b]));
        await sleep(500);
      }

      // Two long cleanup jobs: each worker takes one (a worker runs one job at a time).
      const bulkDeletedAt = Date.now();
      // Both at once and without waiting for the index, so that both jobs are queued together.
      const deletes = await Promise.all(BULK.map((name, i) => attempt(replicas[i]!.url, 'DELETE', `${V3}/entity/structuredProperty/${enc(propertyUrn(name))}`, { query: { async: 'true' } })));
      expect(deletes.map((d) => d.status)).toEqual([200, 200]);
      let seen = '';
      const bulkJobs = await waitFor('both long jobs to be running, part done', 30_000, async () => {
        const long = (await storedJobs(databaseUrl)).filter((j) => BULK.map(propertyUrn).includes(j.payload.propertyUrn));
        seen = JSON.stringify(long.map((j) => ({ id: j.id, status: j.status, attempts: j.attempts, done: j.done, total: j.total, lastError: j.lastError })));
        const running = long.filter((j) => j.status === 'running' && j.done > 0 && j.done < j.total!);
        return running.length === 2 ? running : undefined;
      }, 100).catch((err: Error) => {
        const failures = replicas.flatMap((r) => logLines(r, 'job failed; will retry').map((l) => `${r.name} job ${l.job}: ${l.err}`));
        throw new Error(`${err.message}; last seen ${seen}; failures ${JSON.stringify(failures)}`);
      });

      // The gateway spread its requests over both replicas.
      const spread = [a, b].map((r) => gateway!.sent.get(`${r.url}/api/graphql`) ?? 0);
      report(`gateway requests before the kill: A ${spread[0]}, B ${spread[1]}`);
      expect(Math.min(...spread)).toBeGreaterThan(0);

      // Kill the replica that leads the indexer, mid-load; its clients' failures are retried on the survivor.
      const leaderName = leaderSamples[leaderSamples.length - 1]![0];
      const victim = leaderName === 'A' ? a : b;
      const survivor = victim === a ? b : a;
      const killedAt = Date.now();
      victim.child.kill('SIGKILL');
      live = [survivor];
      await victim.exited;
      report(`killed ${victim.name} (indexer leader) ${killedAt - bulkDeletedAt} ms after the long jobs were queued, at ${JSON.stringify(bulkJobs.map((j) => `${j.id}:${j.done}/${j.total}`))}`);
      const takeover = await waitFor('the survivor to take the indexer lease', 60_000, async () => ((await leaders([survivor])).length === 1 ? Date.now() - killedAt : undefined), 250);
      report(`${survivor.name} took the indexer lease ${takeover} ms after the kill`);
      await sleep(3_000);
    } finally {
      stop = true;
      await load;
    }
    const survivor = live[0]!;

    // One indexer at a time while both ran.
    report(`leaders sampled ${JSON.stringify(leaderSamples)}`);
    expectEvery(leaderSamples, (s) => s.length === 1);
    const byChannel: Record<string, Record<string, number>> = {};
    for (const via of new Set(outcomes.map((o) => o.via))) byChannel[via] = statusCounts(outcomes.filter((o) => o.via === via));
    const retried = outcomes.filter((o) => o.status !== 200 || o.body?.errors).length;
    report(`${acknowledged.size} datasets written, ${outcomes.length} attempts ${JSON.stringify(byChannel)}; ${retried} failed at the kill and were retried on the survivor`);

    // Every job done, completed by exactly one replica, once.
    await waitFor('the cleanup jobs to finish', 120_000, async () => ((await storedJobs(databaseUrl)).every((j) => j.status === 'done') ? true : undefined), 250);
    const jobs = await storedJobs(databaseUrl);
    expect(jobs.map((j) => j.payload.propertyUrn).sort()).toEqual([...DELETED, ...BULK].map(propertyUrn).sort());
    const completedBy = jobs.map((j) => replicas.flatMap((r) => Array.from({ length: jobCompletions(r, j.id) }, () => r.name)));
    report(`jobs ${JSON.stringify(jobs.map((j, i) => ({ id: j.id, attempts: j.attempts, done: `${j.done}/${j.total}`, completedBy: completedBy[i] })))}`);
    expectEvery(completedBy, (names) => names.length === 1);
    expectEvery(jobs, (j) => j.done === j.total);
    // The long jobs: the survivor finished its own (first attempt) and the dead replica's (second attempt).
    const long = jobs.filter((j) => BULK.map(propertyUrn).includes(j.payload.propertyUrn));
    expect(long.map((j) => j.attempts).sort()).toEqual([1, 2]);
    expect(long.map((j) => completedBy[jobs.indexOf(j)])).toEqual([[survivor.name], [survivor.name]]);
    expect(replicas.flatMap((r) => logLines(r, 'lease lost; another worker has the job'))).toEqual([]);
    expect(replicas.flatMap((r) => logLines(r, 'job failed; will retry').map((l) => `${r.name} job ${l.job}: ${l.err}`))).toEqual([]);

    // No acknowledged write lost; nothing of the deleted properties left in the database.
    const stored = await storedDatasets(databaseUrl, 'urn:li:dataset:(urn:li:dataPlatform:hive,rep.d%');
    expect(stored.size).toBe(DATASETS);
    const wrong: string[] = [];
    for (const d of stored.values()) {
      wrong.push(...storageProblems(d));
      const expected = [{ propertyUrn: propertyUrn(LOADED), values: [{ double: acknowledged.get(d.urn) ?? -1 }] }];
      if (JSON.stringify(d.entries) !== JSON.stringify(expected)) wrong.push(`${d.urn}: ${JSON.stringify(d.entries)}, acknowledged ${acknowledged.get(d.urn)}`);
    }
    expect(wrong).toEqual([]);
    for (const name of [...DELETED, ...BULK]) expect(await traces(databaseUrl, propertyUrn(name))).toEqual({ valueRows: 0, aspects: 0 });

    // The index equals the database: every dataset with its stored value, nothing else, no deleted property's value.
    await waitFor('the indexer to drain the change log', 120_000, async () => ((await pendingChanges(databaseUrl)) === 0 ? true : undefined), 250);
    const pairs = [...stored.values()].map((d) => ({ urn: d.urn, value: String((d.entries![0]!.values[0] as { double: number }).double) }));
    expect(await indexedPairs(survivor.url, `structuredProperties.${LOADED}`, pairs)).toBe(DATASETS);
    expect(await holdersOf(survivor.url, `structuredProperties.${LOADED}`)).toBe(DATASETS);
    expect(await searchTotal(survivor.url)).toBe(DATASETS + BULK_DATASETS);
    const bulkStored = await storedDatasets(databaseUrl, 'urn:li:dataset:(urn:li:dataPlatform:hive,rep.b%');
    expect(bulkStored.size).toBe(BULK_DATASETS);
    expect([...bulkStored.values()].filter((d) => d.entries?.length !== 0 || d.rows.size !== 0).map((d) => d.urn)).toEqual([]);
    for (const name of [...DELETED, ...BULK]) {
      expect(await engineCount(sharedMeilisearch(), indexUid(prefix, 'dataset', INDEX_FORMAT), `sp.g${generations.get(propertyUrn(name))} EXISTS`)).toBe(0);
    }
  }, 300_000);
});
