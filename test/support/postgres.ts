/** Per-suite PostgreSQL databases on the server that globalSetup started. */
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import pg from 'pg';
import { createLogger } from '../../src/platform/logger.js';
import { openDatabase } from '../../src/store/database.js';
import { listMigrations } from '../../src/store/migrate.js';
import { APP_VERSION } from '../../src/platform/version.js';

const urlOf = (serverUrl: string, name: string): string => {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

async function onServer<T>(serverUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Creates a fresh, empty database on the server and returns its URL. */
export async function createTestDatabase(serverUrl: string, name: string): Promise<string> {
  await onServer(serverUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  });
  return urlOf(serverUrl, name);
}

const templates = new Map<string, Promise<string>>();

/**
 * A database the start-up runner has migrated, named for this version and its migrations' contents: made
 * once per server (the first worker to ask makes it, under an advisory lock, and marks it
 * a template only when it is complete), then copied. Copying takes some 0.1 s where
 * applying the migrations took 0.4-1 s, for each of the few hundred servers and stores
 * a test run opens.
 */
function migratedTemplate(serverUrl: string): Promise<string> {
  const name = `propgraph_tpl_${createHash('sha256')
    .update([APP_VERSION, ...listMigrations().map((m) => `${m.name}:${m.checksum}`)].join('\n'))
    .digest('hex')
    .slice(0, 16)}`;
  const key = `${serverUrl} ${name}`;
  let made = templates.get(key);
  if (!made) {
    made = onServer(serverUrl, async (client) => {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
      try {
        const found = await client.query<{ datistemplate: boolean }>('SELECT datistemplate FROM pg_database WHERE datname = $1', [name]);
        if (found.rows[0]?.datistemplate) return name;
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await client.query(`CREATE DATABASE "${name}"`);
        const database = await openDatabase({ databaseUrl: urlOf(serverUrl, name), dataDir: tmpdir(), log: createLogger('silent'), poolSize: 2 });
        await database.close();
        await client.query(`ALTER DATABASE "${name}" WITH IS_TEMPLATE true`);
        return name;
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
      }
    });
    made.catch(() => templates.delete(key));
    templates.set(key, made);
  }
  return made;
}

/**
 * Creates a fresh database on the server with this build's migrations applied, as the
 * server's start-up runner leaves a new database, and returns its URL. For suites that
 * test the migrations themselves, `createTestDatabase` gives an empty one.
 */
export async function createMigratedDatabase(serverUrl: string, name: string): Promise<string> {
  const template = await migratedTemplate(serverUrl);
  await onServer(serverUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  });
  return urlOf(serverUrl, name);
}
