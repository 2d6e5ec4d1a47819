/**
 * Issue #46 item 7: every streamed answer releases its database connection when the
 * client goes. A backup read for 64 KB and then closed left its connection in
 * `COPY ... TO STDOUT` for good; twenty such aborts filled the pool and the server
 * answered 503 until restarted; Ctrl-C of `propgraph backup` leaked one too. Here more
 * aborts than the pool has connections, then the database is asked what is still
 * copying, and the server is asked for a whole backup; and the CLI, behind a proxy that
 * hands it the download slowly, is interrupted part-way.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { createConnection, createServer, type Server } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { cliMain, ensureCliBuilt } from '../e2e/cliRunner.js';
import { datasetUrnOf, V3 } from '../support/fixtures.js';
import { http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';
import { waitFor } from '../support/waitFor.js';

const POOL = 4;
let server: TestServer;
let db: pg.Client;

/** Asks for a backup, reads about 64 KB of it, then closes the connection; resolves once it is closed. */
function abortedBackup(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${V3}/system/backup`, { method: 'GET' }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`backup answered ${res.statusCode}`));
        res.resume();
        return;
      }
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= 64 * 1024) {
          res.pause();
          req.destroy();
          resolve(read);
        }
      });
      res.on('end', () => resolve(read));
    });
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end();
  });
}

/** A TCP proxy to `port` that passes the server's bytes on at about `bytesPerSecond` (the client's bytes at once). */
function slowProxy(port: number, bytesPerSecond: number): Promise<{ server: Server; url: string }> {
  const server = createServer((client) => {
    const upstream = createConnection({ port, host: '127.0.0.1' });
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      upstream.pause();
      client.write(chunk, () => setTimeout(() => upstream.resume(), (1000 * chunk.length) / bytesPerSecond));
    });
    upstream.on('end', () => client.end());
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close);
    upstream.on('close', close);
    client.on('error', close);
    upstream.on('error', close);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
}

/** Backends of this database busy in a COPY (a snapshot being streamed). */
async function copying(): Promise<number> {
  const { rows } = await db.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'COPY %' AND pid <> pg_backend_pid() AND state <> 'idle'");
  return rows[0].n as number;
}

beforeAll(async () => {
  await ensureCliBuilt();
  server = await startTestServer({ env: { DATABASE_POOL_SIZE: String(POOL), AUTH_ENABLED: 'false' } });
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  // Enough that the snapshot outlasts what the sockets between server and client buffer
  // (several MB on loopback): 16 MB of descriptions that do not compress well.
  const urns = Array.from({ length: 2000 }, (_, i) => datasetUrnOf(`abort.t${i}`));
  const noise = () => Array.from({ length: 700 }, () => Math.random().toString(36).slice(2)).join(' ').slice(0, 8000);
  for (let i = 0; i < urns.length; i += 100) {
    const body = urns.slice(i, i + 100).map((urn) => ({ urn, datasetProperties: { value: { name: urn, description: noise() } } }));
    expect((await http(server.url, 'POST', `${V3}/entity/dataset`, { json: body })).status).toBe(200);
  }
}, 180_000);

afterAll(async () => {
  await db?.end();
  await server?.stop();
});

test('backups closed after 64 KB, twice as many as the pool holds, leave no connection copying; the server then serves a whole backup', async () => {
  for (let i = 0; i < POOL * 2; i++) {
    expect(await abortedBackup(server.url)).toBeGreaterThanOrEqual(64 * 1024);
  }
  await waitFor('no backend left copying', 30_000, async () => ((await copying()) === 0 ? true : undefined), 50);
  expect((await http(server.url, 'GET', '/health')).status).toBe(200);
  const whole = await http(server.url, 'GET', `${V3}/system/backup`);
  expect(whole.status).toBe(200);
}, 120_000);

test('Ctrl-C of propgraph backup part-way leaves no partial file and no connection copying', async () => {
  const proxy = await slowProxy(Number(new URL(server.url).port), 256 * 1024);
  const home = tempDir('propgraph-backup-int-');
  const out = path.join(home, 'catalog.backup');
  try {
    const child = spawn(process.execPath, [cliMain, 'backup', '--out', out], { cwd: home, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, PROPGRAPH_SERVER: proxy.url }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waitFor('64 KB of the backup saved', 60_000, async () => (existsSync(`${out}.partial`) && statSync(`${out}.partial`).size >= 64 * 1024 ? true : undefined), 10);
    expect(await copying()).toBe(1);
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(stderr).toMatch(/Backup interrupted\. Nothing was written to/);
    expect(existsSync(`${out}.partial`)).toBe(false);
    expect(existsSync(out)).toBe(false);
    await waitFor('no backend left copying', 30_000, async () => ((await copying()) === 0 ? true : undefined), 50);
  } finally {
    proxy.server.close();
  }
}, 120_000);
