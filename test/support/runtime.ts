/**
 * A propgraph runtime in the test's own process, without HTTP: the services exactly as
 * the server builds them (src/boot/runtime.ts), with the job worker and the search indexer
 * running, on a real PostgreSQL (a fresh database of the one globalSetup started, or an
 * embedded one) and, when asked, the shared real Meilisearch. Service tests call the
 * Default* services through it; the HTTP suites are the adapters' contract tests.
 */
import { createLogger } from '../../src/platform/logger.js';
import { startRuntime, type Runtime, type RuntimeTuning } from '../../src/boot/runtime.js';
import type { Caller } from '../../src/services/caller.js';
import type { Config } from '../../src/platform/config.js';
import { cleanUpAfter, databaseUrlOf, testConfig, type TestServerOptions } from './server.js';

export interface TestRuntime extends Runtime {
  readonly config: Config;
  /** The database, for reading it directly. */
  readonly databaseUrl: string;
  stop(): Promise<void>;
}

export async function startTestRuntime(options: TestServerOptions & { tuning?: RuntimeTuning } = {}): Promise<TestRuntime> {
  const config = await testConfig(options);
  const runtime = await startRuntime(config, createLogger(config.logLevel), undefined, options.tuning);
  runtime.startBackgroundWork();
  return {
    ...runtime,
    config,
    databaseUrl: databaseUrlOf(config),
    stop: async () => {
      await runtime.close();
      await cleanUpAfter(config, runtime.search, Boolean(options.search));
    },
  };
}

/** Callers of each scope, as the authentication hook would establish them. */
export const READER: Caller = { actor: 'urn:li:corpuser:reader', scope: 'read' };
export const WRITER: Caller = { actor: 'urn:li:corpuser:writer', scope: 'write' };
export const ADMIN: Caller = { actor: 'urn:li:corpuser:admin', scope: 'admin' };
