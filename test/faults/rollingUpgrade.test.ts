/**
 * A rolling upgrade (docs/operations.md, "Upgrading"): two replicas of the previous
 * release on one external PostgreSQL and one Meilisearch; one is replaced by the
 * current build while clients keep writing through both, then the other is stopped.
 *
 * - When the current build's index format is new, it builds indexes of its own (new
 *   names) in the background while both serve; the release's indexes are never written
 *   by it, so the release's replica answers exactly as before throughout. When the
 *   format is the release's, both write the same indexes, and the release's replica
 *   still answers as before.
 * - When the release's replica stops, the current build takes the indexer over and
 *   re-reads what the release indexed meanwhile: its index then holds every entity
 *   written during the upgrade, through either replica.
 */
import { isDeepStrictEqual } from 'node:util';
import { buildOnce, startBuiltServer, type BuiltProcess } from '../support/builtServer.js';
import { V3 } from '../support/catalog.js';
import { faultServerEnv, stopFaultServers } from '../support/faultServer.js';
import { http, indexCaughtUp } from '../support/http.js';
import { runClients } from '../support/load.js';
import { buildRelease, type ReleaseBuild } from '../support/previousRelease.js';
import { createTestDatabase } from '../support/postgres.js';
import { postgresAvailableForTests, searchAvailableForTests, sharedMeilisearch } from '../support/server.js';
import { withClient } from '../support/storedValues.js';
import { ROOT_TOKEN, searchEverything, writeEveryKind } from '../support/upgradeCatalog.js';
import { sleep, waitFor } from '../support/waitFor.js';
import { releasesBefore } from '../../src/domain/releases.js';
import { INDEX_FORMAT } from '../../src/search/indexFormat.js';
import { indexUid } from '../../src/search/settings.js';
import { APP_VERSION } from '../../src/platform/version.js';
import { nonEmpty } from '../support/nonEmpty.js';

const release = releasesBefore(APP_VERSION)[0];
const root = { authorization: `Bearer ${ROOT_TOKEN}` };
const chartUrn = (client: number, k: number) => `urn:li:chart:(looker,roll.${client}.${k})`;
const CHARTS = `query c { scrollAcrossEntities(input: {types: [CHART], query: "*", count: 0}) { total } }`;

async function chartTotal(url: string): Promise<number> {
  const res = await http(url, 'POST', '/api/graphql', { headers: root, json: { query: CHARTS } });
  return res.body.data.scrollAcrossEntities.total as number;
}

async function indexUids(prefix: string): Promise<string[]> {
  const meili = sharedMeilisearch();
  const res = await fetch(`${meili.url}/indexes?limit=1000`, { headers: { authorization: `Bearer ${meili.key}` } });
  return ((await res.json()) as { results: Array<{ uid: string }> }).results.map((i) => i.uid).filter((uid) => uid.startsWith(prefix)).sort();
}

(release && postgresAvailableForTests() && searchAvailableForTests() ? describe : describe.skip)(`rolling upgrade of two replicas from propgraph ${release?.version} to this build`, () => {
  const prefix = `froll_${process.pid}_`;
  const report = (line: string) => console.log(`[rolling upgrade] ${line}`);
  let build: ReleaseBuild;
  let databaseUrl: string;
  const replicas: BuiltProcess[] = [];

  beforeAll(async () => {
    [build] = await Promise.all([buildRelease(release!), buildOnce()]);
    databaseUrl = await createTestDatabase(process.env.PROPGRAPH_TEST_PG_URL!, `propgraph_froll_${process.pid}`);
  }, 900_000);

  afterAll(async () => {
    await stopFaultServers(replicas, prefix);
  });

  test("the versions never write each other's indexes; after the upgrade the new index holds every write", async () => {
    const env = (name: string) => ({ ...faultServerEnv(databaseUrl, prefix, `froll-${name}`), AUTH_ENABLED: 'true', ROOT_TOKEN });
    const envA = env('A');
    const [a, b] = await Promise.all([startBuiltServer(envA, 120_000, build.root), startBuiltServer(env('B'), 120_000, build.root)]);
    replicas.push(a, b);
    await writeEveryKind(a.url);
    await indexCaughtUp(a.url, 300_000, root.authorization);
    const releaseView = await searchEverything(b.url);
    const releaseIndexes = await indexUids(prefix);

    // Clients write charts (a type the compared searches leave out) through whichever replicas run.
    let live: BuiltProcess[] = [b];
    const acknowledged = new Set<string>();
    let stop = false;
    const writers = runClients(3, async (client) => {
      for (let k = 0; !stop; k++) {
        const target = live[k % live.length] as BuiltProcess & { url: string };
        const urn = chartUrn(client, k);
        const res = await http(target.url, 'POST', `${V3}/entity/chart`, { headers: root, query: { async: 'true' }, json: [{ urn, status: { value: { removed: false } } }] }).catch(() => undefined);
        if (res?.status === 200) acknowledged.add(urn);
        // A steady stream rather than a flood: the scenario is both versions taking writes
        // throughout, and a flood only lengthens the index build it waits for.
        await sleep(res?.status === 200 ? 20 : 50);
      }
    });

    let upgraded: BuiltProcess & { url: string };
    try {
      a.child.kill('SIGTERM');
      await a.exited;
      upgraded = await startBuiltServer(envA);
      replicas.push(upgraded);
      live = [b, upgraded];
      // Meanwhile the release's replica answers exactly as before.
      const differing: unknown[] = [];
      const newFormat = !releaseIndexes.includes(indexUid(prefix, 'dataset', INDEX_FORMAT));
      if (!newFormat) {
        // One index format: nothing to build. Both versions take writes for a while (the
        // writers' k counts up on each), and the release's answers do not change.
        const before = acknowledged.size;
        await waitFor('both versions to take writes', 300_000, async () => {
          const view = await searchEverything(b.url);
          const changed = Object.keys({ ...view, ...releaseView }).filter((k) => !isDeepStrictEqual(view[k], releaseView[k]));
          if (changed.length > 0) differing.push(Object.fromEntries(changed.map((k) => [k, { before: releaseView[k], now: view[k] }])));
          return acknowledged.size >= before + 100 ? true : undefined;
        }, 500);
        expect(differing).toEqual([]);
        expect(await indexUids(prefix)).toEqual(releaseIndexes);
        report(`index format ${INDEX_FORMAT} kept: both versions wrote its indexes; ${acknowledged.size} charts written so far`);
      }
      const built = !newFormat ? undefined : await waitFor('the new index format to be built', 900_000, async () => {
        const jobs = (await http(upgraded.url, 'GET', `${V3}/jobs`, { headers: root })).body.jobs as Array<Record<string, any>>;
        const view = await searchEverything(b.url);
        // Only what changed, beside what the release answered before. Compared as values: the
        // order of an entity's aspects in the release's answer follows the rows' order in the
        // database, which the current build's migrations and writes may change.
        const changed = Object.keys({ ...view, ...releaseView }).filter((k) => !isDeepStrictEqual(view[k], releaseView[k]));
        if (changed.length > 0) differing.push(Object.fromEntries(changed.map((k) => [k, { before: releaseView[k], now: view[k] }])));
        return jobs.find((j) => j.kind === 'search-index-build' && j.status === 'done');
      }, 500).catch(async (err: Error) => {
        const jobs = await withClient(databaseUrl, async (c) => (await c.query('SELECT id, kind, status, attempts, done, total, payload, last_error, run_after FROM job ORDER BY id')).rows);
        throw new Error(`${err.message}; jobs ${JSON.stringify(jobs)}; the new replica's log ends:\n${upgraded.output.join('').slice(-3000)}`);
      });
      if (built) {
        expect(differing).toEqual([]);
        report(`new format ${INDEX_FORMAT} built by job ${built.id} (${built.done} entities) beside the release's indexes; ${acknowledged.size} charts written so far`);
        expect(await searchEverything(b.url)).toEqual(releaseView);
        // Both versions' indexes exist side by side; the release's were not replaced.
        const uids = await indexUids(prefix);
        for (const uid of nonEmpty(releaseIndexes)) expect(uids).toContain(uid);
        expect(uids).toContain(indexUid(prefix, 'dataset', INDEX_FORMAT));
        await sleep(2000);
      }
    } finally {
      stop = true;
      await writers;
    }

    // The release's replica goes: the current build takes the indexer and catches up.
    b.child.kill('SIGTERM');
    await b.exited;
    live = [upgraded];
    await indexCaughtUp(upgraded.url, 300_000, root.authorization);
    const stored = await withClient(databaseUrl, async (c) => Number((await c.query("SELECT count(*)::int AS n FROM entity WHERE entity_type = 'chart'")).rows[0].n));
    expect(stored).toBeGreaterThanOrEqual(acknowledged.size);
    await waitFor('every chart in the new index', 120_000, async () => ((await chartTotal(upgraded.url)) === stored ? true : undefined), 500);
    expect(await searchEverything(upgraded.url)).toEqual(releaseView);
    report(`after the upgrade: ${stored} charts in the database and in the new index (${acknowledged.size} acknowledged)`);
  }, 1_800_000);
});
