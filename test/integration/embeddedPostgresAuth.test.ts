/**
 * Issue #29, item 11: the embedded PostgreSQL trusts no one on its socket. Its cluster
 * is created with a generated password and scram-sha-256 for every connection, the
 * password kept in DATA_DIR/postgres-password (mode 0600); a connection without it is
 * refused. A data directory from the previous version (pg_hba `trust`, no password
 * file) still starts, and is moved to a password on that first start, data intact.
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { http } from '../support/http.js';
import { startTestServer } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';

const D = 'urn:li:dataset:(urn:li:dataPlatform:hive,pgauth.orders,PROD)';

/** Connects to the cluster's socket as the superuser, with this password (none: as a trusting cluster would take it). */
async function connects(dataDir: string, password?: string): Promise<true | string> {
  const client = new pg.Client({ host: path.join(dataDir, 'postgres'), user: 'postgres', database: 'propgraph', ...(password !== undefined ? { password } : {}) });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const hbaMethods = (dataDir: string) =>
  readFileSync(path.join(dataDir, 'postgres', 'pg_hba.conf'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))
    .map((l) => l.trim().split(/\s+/).at(-1));

test('a new cluster: a generated password in DATA_DIR (0600), scram-sha-256 on the socket, no connection without it', async () => {
  const dataDir = tempDir('propgraph-pgauth-');
  const server = await startTestServer({ backend: 'embedded', env: { DATA_DIR: dataDir } });
  try {
    const file = path.join(dataDir, 'postgres-password');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const password = readFileSync(file, 'utf8').trim();
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(hbaMethods(dataDir)).toEqual(['scram-sha-256']);
    expect(await connects(dataDir)).toMatch(/password/i);
    expect(await connects(dataDir, 'wrong')).toMatch(/password authentication failed/);
    expect(await connects(dataDir, password)).toBe(true);
    expect((await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: [{ urn: D, status: { value: { removed: false } } }] })).status).toBe(200);
  } finally {
    await server.stop();
  }
}, 180_000);

test('a data directory of the previous version (trust, no password file) starts, is given a password, and keeps its data', async () => {
  const dataDir = tempDir('propgraph-pgauth-old-');
  const keep = { DATA_DIR: dataDir };
  // A cluster as the previous version left it: written with, then made to trust every socket connection, its role without a password.
  const first = await startTestServer({ backend: 'embedded', env: keep, keepDataDir: true });
  expect((await http(first.url, 'POST', '/openapi/v3/entity/dataset', { json: [{ urn: D, status: { value: { removed: false } } }] })).status).toBe(200);
  await first.database.sql.exec('ALTER ROLE postgres PASSWORD NULL');
  await first.stop();
  writeFileSync(path.join(dataDir, 'postgres', 'pg_hba.conf'), 'local   all             all                                     trust\nhost    all             all             127.0.0.1/32            trust\nhost    all             all             ::1/128                 trust\n');
  rmSync(path.join(dataDir, 'postgres-password'));

  const second = await startTestServer({ backend: 'embedded', env: keep });
  try {
    expect((await http(second.url, 'GET', `/openapi/v3/entity/dataset/${encodeURIComponent(D)}/status`)).body).toMatchObject({ status: { value: { removed: false } } });
    const file = path.join(dataDir, 'postgres-password');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(hbaMethods(dataDir)).toEqual(['scram-sha-256']);
    expect(await connects(dataDir)).toMatch(/password/i);
    expect(await connects(dataDir, readFileSync(file, 'utf8').trim())).toBe(true);
  } finally {
    await second.stop();
  }
}, 240_000);
