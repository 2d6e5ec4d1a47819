/**
 * Issue #46 item 16: a `propgraph restore --from` killed with SIGKILL left the PostgreSQL
 * and the Meilisearch it had started in DATA_DIR running, for good. Its guardian
 * (src/embedded/orphanGuard.ts) stops them once the command is gone; a later restore
 * into the same DATA_DIR then runs to the end.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { isAlive } from '../../src/embedded/childProcess.js';
import { dumpToFile } from '../../src/store/backup/dump.js';
import { APP_VERSION } from '../../src/platform/version.js';
import { createDatasets, datasetUrnOf } from '../support/fixtures.js';
import { searchAvailableForTests, startTestServer } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';
import { waitFor } from '../support/waitFor.js';
import { cliMain, ensureCliBuilt, runCli } from './cliRunner.js';

let home: string;
let file: string;

/** The pid a pid file names when that process is alive. */
function alivePid(pidFile: string): number | undefined {
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]!.trim());
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
}

/** Starts the restore, waits until the engine of `pidFile` runs, kills the command with SIGKILL; returns the engine's pid. */
async function restoreKilledWhenRunning(dataDir: string, pidFile: string, force: boolean): Promise<number> {
  const child = spawn(process.execPath, [cliMain, 'restore', '--from', file, ...(force ? ['--force'] : [])], { cwd: home, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, DATA_DIR: dataDir }, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const pid = await waitFor(`${path.basename(pidFile)} to name a running process`, 120_000, async () => alivePid(pidFile), 20);
  child.kill('SIGKILL');
  await exited;
  return pid;
}

(searchAvailableForTests() ? describe : describe.skip)('a killed restore', () => {
  beforeAll(async () => {
    await ensureCliBuilt();
    home = tempDir('propgraph-restore-killed-');
    const source = await startTestServer();
    try {
      // Enough entities that the index rebuild outlasts a look at its pid file.
      const urns = Array.from({ length: 3000 }, (_, i) => datasetUrnOf(`killed.t${i}`));
      for (let i = 0; i < urns.length; i += 1000) await createDatasets(source.url, urns.slice(i, i + 1000));
      file = path.join(home, 'catalog.backup');
      await dumpToFile(source.databaseUrl, file, APP_VERSION);
    } finally {
      await source.stop();
    }
  }, 300_000);

  afterAll(() => {
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test('its PostgreSQL, and later its Meilisearch, stop once it is killed; the next restore runs to the end', async () => {
    const dataDir = path.join(home, 'data');
    const postgres = await restoreKilledWhenRunning(dataDir, path.join(dataDir, 'postgres', 'postmaster.pid'), false);
    await waitFor('the PostgreSQL the killed restore started to stop', 60_000, async () => (isAlive(postgres) ? undefined : true), 50);

    const meili = await restoreKilledWhenRunning(dataDir, path.join(dataDir, 'meili', 'meilisearch.pid'), true);
    const cluster = alivePid(path.join(dataDir, 'postgres', 'postmaster.pid'));
    await waitFor('the Meilisearch and PostgreSQL the killed restore started to stop', 60_000, async () => (isAlive(meili) || (cluster !== undefined && isAlive(cluster)) ? undefined : true), 50);

    const whole = await runCli(['restore', '--from', file, '--force'], { home, env: { DATA_DIR: dataDir } });
    expect(whole.stderr).toBe('');
    expect(whole.code).toBe(0);
    expect(whole.stdout).toMatch(/Search index rebuilt from the database: \d+ entities/);
    expect(alivePid(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBeUndefined();
  }, 600_000);
});
