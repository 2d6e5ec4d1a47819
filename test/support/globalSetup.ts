/**
 * Starts the shared external servers for the whole test run. Self-contained: Jest
 * loads this file outside the module mapper, so it imports no project files.
 *
 * PostgreSQL: TEST_DATABASE_URL when given; otherwise, where `initdb` exists, a
 * throwaway cluster in a temporary directory owned by the `postgres` user (initdb
 * refuses root) on a free port. Its URL reaches the test workers through the
 * environment; each suite then creates a database of its own.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface PostgresServer {
  readonly url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function findBinary(name: string): string | undefined {
  const which = spawnSync('sh', ['-c', `command -v ${name} || ls /usr/lib/postgresql/*/bin/${name} 2>/dev/null | tail -n 1`], { encoding: 'utf8' });
  const found = which.stdout.trim().split('\n').filter(Boolean).pop();
  return found || undefined;
}

export function postgresAvailable(): boolean {
  return Boolean(process.env.TEST_DATABASE_URL) || Boolean(findBinary('initdb') && findBinary('pg_ctl'));
}

export async function startPostgres(): Promise<PostgresServer> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: async () => {} };
  const initdb = findBinary('initdb');
  const pgCtl = findBinary('pg_ctl');
  if (!initdb || !pgCtl) throw new Error('initdb/pg_ctl not found');
  const dir = mkdtempSync(path.join(tmpdir(), 'propgraph-pg-'));
  chmodSync(dir, 0o777);
  const dataDir = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    asRoot ? execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { stdio: 'pipe' }) : execFileSync(cmd, args, { stdio: 'pipe' });
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  run(initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
  run(pgCtl, ['-D', dataDir, '-o', opts, '-l', path.join(dir, 'log'), '-w', 'start']);
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      try {
        run(pgCtl, ['-D', dataDir, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}


declare global {
  // eslint-disable-next-line no-var
  var __propgraphPostgres: PostgresServer | undefined;
}

export default async function globalSetup(): Promise<void> {
  if (postgresAvailable()) {
    const server = await startPostgres();
    globalThis.__propgraphPostgres = server;
    process.env.PROPGRAPH_TEST_PG_URL = server.url;
  } else {
    console.log('PostgreSQL suites skipped: neither TEST_DATABASE_URL nor initdb/pg_ctl found');
  }
}
