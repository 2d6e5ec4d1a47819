/**
 * A running server: a runtime (runtime.ts: database, search engine, services, the job
 * worker and the search indexer) with the HTTP app in front of it. Used by main.ts and
 * by the tests, which start real servers on free ports.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import type { EarlyStart } from './embedded/earlyStart.js';
import type { Logger } from './logger.js';
import { startRuntime, type Runtime } from './runtime.js';
import { GRAPHIQL_PAGE } from './web/graphiql.js';
import { SWAGGER_UI_PAGE } from './web/swaggerUi.js';

export interface RunningServer extends Omit<Runtime, 'adminToken' | 'health' | 'startBackgroundWork'> {
  readonly app: FastifyInstance;
  readonly url: string;
}

/** `early`: DATA_DIR locked and the embedded engines started already (main.ts does, to overlap them with loading this code). */
export async function startServer(config: Config, log: Logger, early?: EarlyStart): Promise<RunningServer> {
  const runtime = await startRuntime(config, log, early);
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp({ config, log, services: runtime.services, version: packageVersion(), health: { health: runtime.health } });
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app?.close().catch(() => undefined);
    await runtime.close();
    throw err;
  }
  runtime.startBackgroundWork();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // The lines a person starting the server reads first: where to go, and with what.
  log.info(
    {
      url,
      swaggerUi: `${url}${SWAGGER_UI_PAGE}`,
      ...(config.graphiqlEnabled ? { graphiql: `${url}${GRAPHIQL_PAGE}` } : {}),
      adminToken: runtime.adminToken,
      database: runtime.database.kind,
      search: runtime.search.mode,
    },
    'propgraph listening',
  );

  let closing: Promise<void> | undefined;
  const server = app;
  return {
    app: server,
    url,
    database: runtime.database,
    services: runtime.services,
    worker: runtime.worker,
    search: runtime.search,
    indexer: runtime.indexer,
    testEvaluator: runtime.testEvaluator,
    close: () => {
      // Stop taking requests and let in-flight ones finish, then stop background work, then close storage.
      closing ??= (async () => {
        await server.close();
        await runtime.close();
      })();
      return closing;
    },
  };
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
}
