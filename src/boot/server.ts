/**
 * A running server: a runtime (runtime.ts: database, search engine, services, the job
 * worker and the search indexer) with the HTTP app in front of it, and what operators
 * ask of it (docs/operations.md): /metrics, traces when configured, the probes, and a
 * shutdown that finishes every request before the engines stop. Used by start.ts and by
 * the tests, which start real servers on free ports.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from '../platform/config.js';
import { trackConnections, type ConnectionDrain } from './connectionDrain.js';
import type { EarlyStart } from '../embedded/earlyStart.js';
import type { Logger } from '../platform/logger.js';
import { metricsScrape } from '../services/metricsScrape.js';
import { startMetricsServer, type MetricsServer } from '../rest/metricsRoutes.js';
import type { Readiness } from '../rest/systemRoutes.js';
import { startRuntime, type Runtime } from './runtime.js';
import { missingMigrations } from '../store/health.js';
import { listMigrations } from '../store/migrate.js';
import { startTracing } from '../telemetry/tracing.js';
import { GRAPHIQL_PAGE } from '../web/graphiql.js';
import { SWAGGER_UI_PAGE } from '../web/swaggerUi.js';
import { APP_VERSION } from '../platform/version.js';

export interface RunningServer extends Omit<Runtime, 'adminToken' | 'health' | 'startBackgroundWork' | 'searchIndex'> {
  readonly app: FastifyInstance;
  readonly url: string;
  /** The metrics port's /metrics, when METRICS_PORT is set. */
  readonly metricsUrl: string | undefined;
  /**
   * Not ready any more; no new connections; every request in flight answered
   * (connectionDrain.ts); then background work stops, then the engines.
   */
  close(): Promise<void>;
}

/** `early`: DATA_DIR locked and the embedded engines started already (start.ts does, to overlap them with loading this code). */
export async function startServer(config: Config, log: Logger, early?: EarlyStart): Promise<RunningServer> {
  // Before the app is built: whether spans are made is decided once, there.
  const tracer = config.tracing ? await startTracing({ ...config.tracing, serviceVersion: APP_VERSION }) : null;
  if (config.tracing) log.info({ endpoint: config.tracing.tracesUrl }, 'exporting traces over OTLP/HTTP');
  let runtime: Runtime;
  try {
    runtime = await startRuntime(config, log, early);
  } catch (err) {
    await tracer?.stop();
    throw err;
  }
  let shuttingDown = false;
  const ready = readiness(runtime, () => shuttingDown);
  const metrics = metricsScrape({ database: runtime.database, engine: runtime.search.engine, log });
  let app: FastifyInstance | undefined;
  let drain: ConnectionDrain;
  let metricsServer: MetricsServer | undefined;
  try {
    await runtime.searchIndex?.prepare();
    app = await buildApp({ config, log, services: runtime.services, version: APP_VERSION, health: { health: runtime.health, ready }, metrics, ...(runtime.searchIndex ? { searchIndex: runtime.searchIndex } : {}) });
    drain = trackConnections(app.server);
    await app.listen({ port: config.port, host: config.host });
    if (config.metricsPort !== undefined) metricsServer = await startMetricsServer(config.host, config.metricsPort, metrics, log);
  } catch (err) {
    await app?.close().catch(() => undefined);
    await runtime.close();
    await tracer?.stop();
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
      code: codeLoadedFrom(import.meta.url),
      ...(metricsServer ? { metrics: metricsServer.url } : {}),
    },
    'propgraph listening',
  );

  let closing: Promise<void> | undefined;
  const server = app;
  return {
    app: server,
    url,
    metricsUrl: metricsServer?.url,
    database: runtime.database,
    services: runtime.services,
    worker: runtime.worker,
    search: runtime.search,
    indexer: runtime.indexer,
    testEvaluator: runtime.testEvaluator,
    close: () => {
      // The indexer runs until the last request is answered, so writes waiting for the index still see it.
      closing ??= (async () => {
        shuttingDown = true;
        const started = performance.now();
        drain.start();
        await server.close();
        log.info({ ms: Math.round(performance.now() - started) }, 'requests drained; stopping background work and the engines');
        await metricsServer?.close();
        await runtime.close();
        await tracer?.stop();
      })();
      return closing;
    },
  };
}

/** GET /health/ready: the database answers, every migration this build ships is applied, and the server is not shutting down. */
function readiness(runtime: Runtime, shuttingDown: () => boolean): () => Promise<Readiness> {
  const shipped = listMigrations().map((m) => m.name);
  return async () => {
    if (shuttingDown()) return { ready: false, reason: 'shutting down' };
    let missing: string[];
    try {
      missing = await missingMigrations(runtime.database.db, shipped);
    } catch (err) {
      return { ready: false, reason: `the database does not answer: ${(err as Error).message.slice(0, 200)}` };
    }
    if (missing.length > 0) return { ready: false, reason: `migrations not applied: ${missing.join(', ')}` };
    return shuttingDown() ? { ready: false, reason: 'shutting down' } : { ready: true };
  };
}

/**
 * Where the running server's code was loaded from, named in its listening line:
 * `bundle` (dist/bundle, which `npm run build` makes and main.js runs), `tsc` (tsc's
 * modules in dist/, run while they are newer than the bundle) or `sources` (the
 * TypeScript itself, as the tests load it).
 */
export function codeLoadedFrom(moduleUrl: string): 'bundle' | 'tsc' | 'sources' {
  if (moduleUrl.endsWith('.ts')) return 'sources';
  return path.basename(path.dirname(fileURLToPath(moduleUrl))) === 'bundle' ? 'bundle' : 'tsc';
}
