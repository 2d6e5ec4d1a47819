/**
 * Starts a real propgraph server for a test suite, on a free port, logs silenced:
 * on the embedded default (the server runs its own PostgreSQL in a fresh DATA_DIR, as
 * `npm start` does) or on a fresh database of the external PostgreSQL that globalSetup
 * started (as a deployment with DATABASE_URL does).
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { DestinationStream } from 'pino';
import { loadConfig, type Config } from '../../src/platform/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { embeddedDatabaseUrl } from '../../src/embedded/postgresAuth.js';
import { startServer, type RunningServer } from '../../src/boot/server.js';
import { createMigratedDatabase } from './postgres.js';
import { tempDir } from './tempDir.js';

export type Backend = 'embedded' | 'external';

export interface TestServer extends RunningServer {
  readonly dataDir: string;
  /** The database it uses, for reading it directly: DATABASE_URL, or its embedded cluster's socket. */
  readonly databaseUrl: string;
  readonly config: Config;
  stop(): Promise<void>;
}

let counter = 0;
/**
 * Jest loads this module again for every suite, so `counter` starts again at 0 in each
 * suite a worker runs: the index prefix also names the suite. With the worker's pid and
 * the counter alone, a suite's indexes had the names of the previous suite's in that
 * worker, so anything that suite left behind could meet the new one (seen once in CI: a
 * search found an index of its name without settings, "Attribute `_removed` is not
 * filterable").
 */
const SUITE = randomBytes(3).toString('hex');

export interface TestServerOptions {
  /** Default: external when globalSetup started a PostgreSQL, else embedded. */
  backend?: Backend;
  env?: Record<string, string>;
  /**
   * Use a Meilisearch: `true` for the one globalSetup started (with indexes under a
   * prefix of this server's own, dropped on stop), or a given one.
   */
  search?: boolean | { url: string; key: string };
  /** Where the server's log lines go (JSON, or pretty with LOG_FORMAT=pretty), for suites that read them; LOG_LEVEL applies. */
  logDestination?: DestinationStream;
  /** Leave DATA_DIR on stop (to start another server on it). */
  keepDataDir?: boolean;
}

/** The configuration a test server or runtime starts with: a fresh DATA_DIR and database, logs silenced. */
export async function testConfig(options: TestServerOptions = {}): Promise<Config> {
  const dataDir = tempDir('propgraph-test-');
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    AUTH_ENABLED: 'false',
    MEILI_EMBEDDED: 'false',
    // Searches trust their cached registry for ten minutes here, so every suite checks
    // that a registry change made through this server is seen by the next search at once
    // (not merely after the time-based recheck).
    SEARCH_REGISTRY_RECHECK_MS: '600000',
  };
  if (options.search) {
    const meili = options.search === true ? sharedMeilisearch() : options.search;
    env.MEILI_URL = meili.url;
    env.MEILI_API_KEY = meili.key;
    env.MEILI_INDEX_PREFIX = `t${process.pid}${SUITE}_${++counter}_`;
  }
  Object.assign(env, options.env);
  const backend = options.backend ?? (postgresAvailableForTests() ? 'external' : 'embedded');
  if (backend === 'external' && !options.env?.DATABASE_URL) {
    const serverUrl = process.env.PROPGRAPH_TEST_PG_URL;
    if (!serverUrl) throw new Error('no PostgreSQL server for tests');
    env.DATABASE_URL = await createMigratedDatabase(serverUrl, `propgraph_${process.pid}_${++counter}`);
  }
  const config = loadConfig(env);
  // A DATA_DIR given by the suite replaces the fresh one.
  if (config.dataDir !== dataDir) rmSync(dataDir, { recursive: true, force: true });
  return config;
}

/** The database a test server or runtime uses, for reading it directly: DATABASE_URL, or its embedded cluster's socket (with the password the server keeps in DATA_DIR, once it has started). */
export const databaseUrlOf = (config: Config): string => config.databaseUrl ?? embeddedDatabaseUrl(config.dataDir);

/** Leaves the shared Meilisearch as it was and removes the data directory (unless it is to be kept). */
export async function cleanUpAfter(config: Config, search: RunningServer['search'], usedSearch: boolean, keepDataDir = false): Promise<void> {
  if (usedSearch) await search.engine?.dropAllIndexes().catch(() => undefined);
  if (!keepDataDir) rmSync(config.dataDir, { recursive: true, force: true });
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const config = await testConfig(options);
  const server = await startServer(config, createLogger(config.logLevel, options.logDestination ? config.logFormat : 'json', options.logDestination));
  return {
    ...server,
    dataDir: config.dataDir,
    databaseUrl: databaseUrlOf(config),
    config,
    stop: async () => {
      await server.close();
      await cleanUpAfter(config, server.search, Boolean(options.search), options.keepDataDir);
    },
  };
}

/** Whether globalSetup started an external PostgreSQL for this run. */
export const postgresAvailableForTests = (): boolean => Boolean(process.env.PROPGRAPH_TEST_PG_URL);

/** Whether globalSetup started a Meilisearch for this run. */
export const searchAvailableForTests = (): boolean => Boolean(process.env.PROPGRAPH_TEST_MEILI_URL);

export function sharedMeilisearch(): { url: string; key: string } {
  const url = process.env.PROPGRAPH_TEST_MEILI_URL;
  const key = process.env.PROPGRAPH_TEST_MEILI_KEY;
  if (!url || !key) throw new Error('no Meilisearch for tests (globalSetup found no binary)');
  return { url, key };
}
