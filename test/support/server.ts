/**
 * Starts a real propgraph server for a test suite: a fresh PGlite directory (or a
 * fresh database on the shared PostgreSQL server), a free port, logs silenced.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestDatabase } from './postgres.js';

export type Backend = 'pglite' | 'postgres';

export interface TestServer extends RunningServer {
  readonly dataDir: string;
  readonly config: Config;
  stop(): Promise<void>;
}

let counter = 0;

export async function startTestServer(options: { backend?: Backend; env?: Record<string, string> } = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'propgraph-test-'));
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    AUTH_ENABLED: 'false',
    MEILI_EMBEDDED: 'false',
    ...options.env,
  };
  if (options.backend === 'postgres') {
    const serverUrl = process.env.PROPGRAPH_TEST_PG_URL;
    if (!serverUrl) throw new Error('no PostgreSQL server for tests');
    env.DATABASE_URL = await createTestDatabase(serverUrl, `propgraph_${process.pid}_${++counter}`);
  }
  const config = loadConfig(env);
  const server = await startServer(config, createLogger(config.logLevel));
  return {
    ...server,
    dataDir,
    config,
    stop: async () => {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `describe` for suites that need PostgreSQL: announces and skips itself when none is available. */
export const postgresAvailableForTests = (): boolean => Boolean(process.env.PROPGRAPH_TEST_PG_URL);
