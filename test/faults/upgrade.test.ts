/**
 * Upgrades keep data (README, "Upgrading"): the previous releases (src/domain/releases.ts,
 * up to two back), built from their commits as a user installs them, start on a fresh
 * data directory, on the embedded default and on an external PostgreSQL. Through them
 * the suite writes every kind of data they hold (test/support/upgradeCatalog.ts), then
 * hard-deletes a property 4,000 datasets hold and stops the release while the cleanup
 * job runs. The current build then starts on the same data, and
 *
 * - logs the upgrade with both versions and the migrations it applied;
 * - reads everything back identically over REST v3, GraphQL and Rest.li (it may add the
 *   results of metadata tests on entities the release never evaluated), and keeps every
 *   earlier version of each aspect as stored (the release has no read of them);
 * - when its index format is new, builds its search index in the background, and
 *   then (as when the format is the release's, whose index it keeps) answers searches
 *   as the release did;
 * - finishes the interrupted cleanup job, leaving no value of the property anywhere;
 * - accepts the release's tokens (a revoked one stays revoked).
 *
 * Then the other direction: data recorded as opened by a newer version is refused at
 * start, with both versions named, and nothing is changed.
 */
import { buildOnce, startBuiltServer, type BuiltProcess } from '../support/builtServer.js';
import { datasetUrn, propertyUrn, V3 } from '../support/catalog.js';
import { faultBackends, faultDeployment, type FaultDeployment } from '../support/faultServer.js';
import { enc, http, indexCaughtUp, refusesConnections } from '../support/http.js';
import { attempt, drainQueue } from '../support/load.js';
import { buildRelease, type ReleaseBuild } from '../support/previousRelease.js';
import { holdEntityRow, lockWaits, storedJobs, traces, withClient } from '../support/storedValues.js';
import { contentChecksum } from '../support/tableCounts.js';
import { readEverything, ROOT_TOKEN, searchEverything, storedHistory, withoutNewTestResults, writeEveryKind } from '../support/upgradeCatalog.js';
import { waitFor } from '../support/waitFor.js';
import { releasesBefore } from '../../src/domain/releases.js';
import { INDEX_FORMAT } from '../../src/search/indexFormat.js';
import { APP_VERSION } from '../../src/platform/version.js';
import { VERSION_MIGRATION } from '../../src/store/dataVersion.js';
import { listMigrations } from '../../src/store/migrate.js';

const HELD = 4000;
const heldOf = (i: number) => datasetUrn(`up.h${String(i).padStart(5, '0')}`);
const root = { authorization: `Bearer ${ROOT_TOKEN}` };
const previous = releasesBefore(APP_VERSION).slice(0, 2);
// Each release on one setup per run, the other in the other part (faultServer.ts, partOfMatrix).
const cases = previous.flatMap((release, r) => faultBackends(r).map((backend) => [release.version, backend] as const));

/** The search index formats a database holds (none before the release that added the table). */
async function indexFormats(databaseUrl: string): Promise<string[]> {
  return withClient(databaseUrl, async (c) => {
    const table = await c.query("SELECT to_regclass('search_index_format') AS t");
    if (table.rows[0].t === null) return [];
    return (await c.query('SELECT format FROM search_index_format')).rows.map((r: { format: string }) => r.format);
  });
}

function logEntries(server: BuiltProcess, msg: string): Array<Record<string, any>> {
  return server.output
    .join('')
    .split('\n')
    .filter((line) => line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/**
 * Runs the scenario; a failure also shows the newest server's log (less its request
 * lines): CI keeps only the start and end of a run's output, which cut this suite's
 * failure once, so the failing line and its cause must travel in the message itself.
 */
async function withServerLogs(servers: Array<BuiltProcess | undefined>, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    const newest = servers.filter((s): s is BuiltProcess => s !== undefined).at(-1);
    const log = newest ? newest.output.join('').split('\n').filter((line) => !line.includes('"route":')).slice(-30).join('\n') : '(no server started)';
    if (err instanceof Error) err.message = `${err.message}\n\nThe newest server's log ends:\n${log}`;
    throw err;
  }
}

(cases.length > 0 ? describe.each(cases) : describe.skip.each([['none', 'none']]))('upgrade from propgraph %s to this build, %s PostgreSQL', (version, backend) => {
  const report = (line: string) => console.log(`[upgrade ${version} -> ${APP_VERSION}, ${backend}] ${line}`);
  let release: ReleaseBuild;
  let deployment: FaultDeployment;
  let env: Record<string, string>;
  const servers: Array<BuiltProcess | undefined> = [];

  beforeAll(async () => {
    const started = Date.now();
    [release] = await Promise.all([buildRelease(previous.find((r) => r.version === version)!), buildOnce()]);
    report(`release built (or found built) in ${Date.now() - started} ms at ${release.root}`);
    deployment = await faultDeployment(backend as 'embedded' | 'external', `upg-${backend}`);
    env = { ...deployment.env, AUTH_ENABLED: 'true', ROOT_TOKEN };
  }, 900_000);

  afterAll(async () => {
    await deployment?.cleanup(servers);
  });

  test('everything the release wrote reads back identically; the interrupted job finishes; its tokens work', () => withServerLogs(servers, async () => {
    const suiteStarted = Date.now();
    const old = await startBuiltServer(env, 120_000, release.root);
    servers.push(old);
    const tokens = await writeEveryKind(old.url).catch((err: Error) => {
      throw new Error(`${err.message}; the release's log ends:\n${old.output.join('').slice(-4000)}`);
    });
    await http(old.url, 'POST', `${V3}/entity/structuredProperty/${enc(propertyUrn('up.held'))}/propertyDefinition`, {
      headers: root,
      json: { value: { qualifiedName: 'up.held', valueType: 'urn:li:dataType:svc.number', cardinality: 'SINGLE', entityTypes: ['urn:li:entityType:svc.dataset'] } },
    });
    const batches = Array.from({ length: HELD / 500 }, (_, b) => Array.from({ length: 500 }, (_, k) => b * 500 + k));
    await drainQueue(batches, 3, async (batch) => {
      const res = await http(old.url, 'POST', `${V3}/entity/dataset`, {
        headers: root,
        query: { async: 'true' },
        json: batch.map((i) => ({ urn: heldOf(i), status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: propertyUrn('up.held'), values: [{ double: i }] }] } } })),
      });
      if (res.status !== 200) throw new Error(res.text);
    });
    await indexCaughtUp(old.url, 300_000, root.authorization);
    // The release reads no earlier version over its API: history is compared as stored.
    const before = await readEverything(old.url, { versionReads: false });
    const history = await storedHistory(deployment.databaseUrl);
    expect(history.length).toBeGreaterThan(0);
    const newFormat = !(await indexFormats(deployment.databaseUrl)).includes(INDEX_FORMAT);
    const releaseBuilds = ((await http(old.url, 'GET', `${V3}/jobs`, { headers: root })).body.jobs as Array<Record<string, any>>).filter((j) => j.kind === 'search-index-build').map((j) => j.id);
    report(newFormat ? `this build's index format ${INDEX_FORMAT} is new: it builds its index` : `this build keeps the release's index format ${INDEX_FORMAT}`);
    const searched = await searchEverything(old.url);
    report(`release ${version} wrote and indexed the catalogue in ${Date.now() - suiteStarted} ms`);

    // The hard delete's cleanup job, stopped part-way with the release. The suite holds one
    // holder's row locked as a write does, a quarter of the way in: the job writes its
    // holders in order of urn, so it stops part done at the batch holding that row however
    // loaded the machine is, while the delete answers (it writes the property's own row).
    // The release is then stopped, and the row let go only once the release has drained its
    // requests and is stopping its job worker, with at least two batches still to run
    // (1,000 a batch from 0.2.0 on, 200 in 0.1.0). Stepping the release with SIGSTOP until
    // the job was part done raced: a stop drains requests first, and while the delete's
    // answer waited for the search index the job ran on to its end.
    const heldJob = async () => (await storedJobs(deployment.databaseUrl)).find((j) => j.payload?.propertyUrn === propertyUrn('up.held'));
    const row = await holdEntityRow(deployment.databaseUrl, heldOf(HELD / 4));
    let running: NonNullable<Awaited<ReturnType<typeof heldJob>>>;
    try {
      const deleting = attempt(old.url, 'DELETE', `${V3}/entity/structuredProperty/${enc(propertyUrn('up.held'))}`, { headers: root }, 300_000);
      running = await waitFor('the cleanup job to wait for the held row', 120_000, async () => {
        const job = await heldJob();
        return job?.status === 'running' && job.done > 0 && (await lockWaits(deployment.databaseUrl)) > 0 ? job : undefined;
      }, 50);
      expect(running.done).toBeLessThanOrEqual(HELD / 4);
      expect(await deleting).toMatchObject({ status: 200 });
      old.child.kill('SIGTERM');
      // From 0.2.0 on the release logs the drain; 0.1.0 stops its worker as its listener closes.
      await waitFor('the release to drain its requests', 60_000, async () =>
        logEntries(old, 'requests drained; stopping background work and the engines').length > 0 || (version === '0.1.0' && (await refusesConnections(old.url))) || undefined);
    } finally {
      await row.release();
    }
    expect(await old.exited).toBe(0);
    report(`release stopped with cleanup job ${running.id} waiting at ${running.done}/${running.total}`);
    // (The embedded database stops with the release: its log says whether the job ended.)
    expect(logEntries(old, 'job done').filter((line) => line.job === running.id)).toEqual([]);

    // The current build on the same data.
    const upgradeStarted = Date.now();
    const current = await startBuiltServer(env);
    servers.push(current);
    const startMs = Date.now() - upgradeStarted;
    const upgraded = logEntries(current, 'propgraph upgraded the database');
    expect(upgraded).toHaveLength(1);
    const ours = listMigrations().map((m) => m.name).filter((name) => name > previous.find((r) => r.version === version)!.lastMigration);
    expect(upgraded[0]).toMatchObject({ fromVersion: version, toVersion: APP_VERSION, migrations: ours });
    report(`current build listening ${startMs} ms after start; upgrade logged: ${JSON.stringify({ from: upgraded[0]!.fromVersion, to: upgraded[0]!.toVersion, migrations: upgraded[0]!.migrations })}`);
    // A release from 0.2.0 on recorded itself when it created the database; 0.1.0 did not.
    const releaseRecorded = previous.find((r) => r.version === version)!.lastMigration >= VERSION_MIGRATION ? [{ version, previous_version: null }] : [];
    expect(await withClient(deployment.databaseUrl, async (c) => (await c.query('SELECT version, previous_version FROM propgraph_version ORDER BY id')).rows)).toEqual([
      ...releaseRecorded,
      { version: APP_VERSION, previous_version: version },
    ]);

    // It serves at once, saying whether its search index is being built.
    const early = await http(current.url, 'GET', '/health', { headers: root });
    expect(early.status).toBe(200);
    expect(early.body.search.index.state).toBe(newFormat ? 'rebuilding' : 'ready');
    expect(early.headers.get('x-search-index')).toBe(newFormat ? 'rebuilding' : null);
    // Reads do not wait for the index: identical at once (but for results of metadata tests
    // on entities the release never evaluated, which this build's evaluator may add).
    expect(withoutNewTestResults(before, await readEverything(current.url, { versionReads: false })).read).toEqual(before);
    expect(await storedHistory(deployment.databaseUrl)).toEqual(history);

    // A new index format is built in the background, with progress in the jobs API; the
    // release's format is kept as it is.
    const indexBuilds = async () => ((await http(current.url, 'GET', `${V3}/jobs`, { headers: root })).body.jobs as Array<Record<string, any>>).filter((j) => j.kind === 'search-index-build');
    let built = 'kept';
    if (newFormat) {
      const build = await waitFor('the search index build to finish', 300_000, async () => {
        const job = (await indexBuilds()).find((j) => !releaseBuilds.includes(j.id));
        return job?.status === 'done' ? job : undefined;
      }, 250);
      expect(build.total).toBeGreaterThan(0);
      expect(build.done).toBe(build.total);
      built = `built (${build.total} entities)`;
    } else {
      expect((await indexBuilds()).map((j) => j.id)).toEqual(releaseBuilds);
    }
    const finished = await waitFor('the cleanup job to finish', 300_000, async () => {
      const job = (await http(current.url, 'GET', `${V3}/jobs/${running.id}`, { headers: root })).body;
      return job.status === 'done' || job.status === 'failed' ? job : undefined;
    }, 250);
    expect(finished).toMatchObject({ status: 'done', total: HELD, done: HELD, lastError: null });
    expect(await traces(deployment.databaseUrl, propertyUrn('up.held'))).toEqual({ valueRows: 0, aspects: 0 });
    await indexCaughtUp(current.url, 300_000, root.authorization);
    const health = await http(current.url, 'GET', '/health', { headers: root });
    expect(health.body.search.index.state).toBe('ready');
    expect(health.headers.get('x-search-index')).toBeNull();
    expect(await searchEverything(current.url)).toEqual(searched);
    const after = withoutNewTestResults(before, await readEverything(current.url, { versionReads: false }));
    expect(after.read).toEqual(before);
    report(`${after.added} test results added by this build's evaluation of entities the release never evaluated`);
    expect(await storedHistory(deployment.databaseUrl)).toEqual(history);
    report(`index ${built}, cleanup finished, all read back ${Date.now() - upgradeStarted} ms after the start`);

    // The release's tokens.
    const asReader = { authorization: `Bearer ${tokens.read}` };
    expect((await http(current.url, 'GET', `${V3}/entity/dataset/${enc(heldOf(0))}`, { headers: asReader })).status).toBe(200);
    expect((await http(current.url, 'POST', `${V3}/entity/dataset`, { headers: asReader, json: [{ urn: heldOf(0), status: { value: { removed: false } } }] })).status).toBe(403);
    expect((await http(current.url, 'POST', `${V3}/entity/dataset`, { headers: { authorization: `Bearer ${tokens.write}` }, json: [{ urn: datasetUrn('up.after'), status: { value: { removed: false } } }] })).status).toBe(200);
    expect((await http(current.url, 'GET', `${V3}/entity/dataset/${enc(heldOf(0))}`, { headers: { authorization: `Bearer ${tokens.revoked}` } })).status).toBe(401);
    report(`suite ${Date.now() - suiteStarted} ms`);

    // The other direction: data a newer version opened is refused, and nothing changes.
    await withClient(deployment.databaseUrl, (c) => c.query("INSERT INTO propgraph_version (version, previous_version, migrations) VALUES ('99.0.0', $1, '[]')", [APP_VERSION]));
    current.child.kill('SIGTERM');
    expect(await current.exited).toBe(0);
    // The embedded database is reachable only while a server runs it.
    const sum = backend === 'external' ? await contentChecksum(deployment.databaseUrl) : '';
    const refused = await startBuiltServer(env).then(
      (s) => {
        servers.push(s);
        throw new Error('the server started on data of a newer version');
      },
      (err: Error) => err.message,
    );
    expect(refused).toContain('This database was last opened by propgraph 99.0.0');
    expect(refused).toContain(`this is propgraph ${APP_VERSION}`);
    if (backend === 'external') expect(await contentChecksum(deployment.databaseUrl)).toBe(sum);
  }), 1_800_000);
});
