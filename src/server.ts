/**
 * Assembles a running server from a Config: database (migrated), search engine,
 * services, the job worker, the search indexer and the HTTP app. Used by main.ts and
 * by the tests, which start real servers on free ports.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { setUrnNamespace } from './domain/typeUrns.js';
import { searchableEntityTypes } from './domain/registry/entityTypes.js';
import type { Logger } from './logger.js';
import { lockDataDir } from './embedded/dataDirLock.js';
import type { EarlyStart } from './embedded/earlyStart.js';
import { connectSearch, type SearchConnection } from './search/connect.js';
import { SYSTEM_CALLER } from './services/caller.js';
import { createServices, type Services } from './services/index.js';
import { NO_WAIT } from './services/indexWaiter.js';
import { REINDEX } from './services/jobs/kinds.js';
import { JobWorker } from './services/jobs/worker.js';
import { ChangeLogIndexWaiter } from './services/searchIndex/changeLogWaiter.js';
import { SearchIndexer } from './services/searchIndex/indexer.js';
import { rebuildIndexes } from './services/searchIndex/rebuild.js';
import { GRAPHIQL_PAGE } from './web/graphiql.js';
import { SWAGGER_UI_PAGE } from './web/swaggerUi.js';
import { openDatabase, type Database } from './store/database.js';
import { entitiesIndexedBefore } from './store/changeLog.js';
import { entityPageReader } from './store/aspects.js';
import { databaseHealth } from './store/health.js';
import { registryEpochReader } from './store/propertyRegistry.js';
import type { ComponentHealth } from './rest/systemRoutes.js';

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly database: Database;
  readonly services: Services;
  readonly worker: JobWorker;
  readonly search: SearchConnection;
  /** Null when search is disabled. */
  readonly indexer: SearchIndexer | null;
  close(): Promise<void>;
}

/** `early`: DATA_DIR locked and the embedded engines started already (main.ts does, to overlap them with loading this code). */
export async function startServer(config: Config, log: Logger, early?: EarlyStart): Promise<RunningServer> {
  setUrnNamespace(config.urnNamespace);
  // Before anything in DATA_DIR is touched: a second server on it must change nothing.
  const lock = early?.lock ?? (await lockDataDir(config.dataDir));
  // The database and the search engine start side by side (each may be a child process).
  const [opened, connected] = await Promise.allSettled([
    openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, embeddedBinDir: config.embeddedPostgresBinDir, poolSize: config.databasePoolSize, log, embedded: early?.postgres }),
    connectSearch(config, log, early?.meilisearch),
  ]);
  if (opened.status === 'rejected' || connected.status === 'rejected') {
    if (opened.status === 'fulfilled') await opened.value.close();
    if (connected.status === 'fulfilled') await connected.value.stop();
    await lock.release();
    throw opened.status === 'rejected' ? opened.reason : (connected as PromiseRejectedResult).reason;
  }
  const database = opened.value;
  const search = connected.value;
  const db = database.prisma;
  const engine = search.engine;
  let services: Services | undefined;
  const requestRebuild = (reason: string) => {
    services?.search.requestRebuild(SYSTEM_CALLER, reason).then(
      ({ jobId, created }) => log.info({ jobId, created, reason }, 'search index rebuild requested'),
      (err) => log.warn({ err: (err as Error).message, reason }, 'could not request a search index rebuild'),
    );
  };
  const readEntityPage = entityPageReader(database.read);
  const indexer = engine
    ? new SearchIndexer({
        db,
        readEntityPage,
        engine,
        log,
        batchSize: config.searchIndexBatchSize,
        // An index created now on a database that already holds entities indexed before
        // (Meilisearch data lost, search newly enabled, a type newly searchable) must be rebuilt.
        onIndexesCreated: async (types) => {
          if (await entitiesIndexedBefore(db, types).catch(() => false)) requestRebuild('new empty index');
        },
      })
    : null;
  const indexWaiter = indexer ? new ChangeLogIndexWaiter({ db, indexer, timeoutMs: config.indexWaitMs }) : NO_WAIT;
  services = createServices({ db, statement: database.statement, registryEpoch: registryEpochReader(database.read), readEntityPage, log, indexWaiter, searchEngine: engine, searchRegistryRecheckMs: config.searchRegistryRecheckMs, ...(search.reason ? { searchDisabledReason: search.reason } : {}) });
  const adminToken = await bootstrapAuthentication(config, log, services);
  const worker = new JobWorker({ db, log, onChanges: () => indexer?.nudge() });
  if (engine) {
    worker.register(REINDEX, async (ctx) => {
      const outcome = await rebuildIndexes({ db, readEntityPage, engine, log }, (p) => ctx.progress({ total: p.total, done: p.done }), ctx.stopping);
      indexer?.nudge();
      return outcome === 'done' ? 'done' : 'yield';
    });
  }
  let app: FastifyInstance | undefined;
  const health = async (): Promise<Record<string, ComponentHealth>> => {
    try {
      // At once, not one after another: a busy server answers each in its own turn of the event loop.
      const [state, searchState] = await Promise.all([databaseHealth(database.read), searchHealth(search, indexer)]);
      return {
        database: { ok: true, kind: database.kind },
        search: searchState,
        jobs: { ok: true, ...state.jobs },
        changeLog: { ok: true, pending: state.pending },
      };
    } catch (err) {
      return { database: { ok: false, kind: database.kind, error: (err as Error).message.slice(0, 200) } };
    }
  };
  try {
    app = await buildApp({ config, log, services, version: packageVersion(), health: { health } });
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app?.close().catch(() => undefined);
    await search.stop();
    await database.close();
    await lock.release();
    throw err;
  }
  if (config.backgroundWorkers) {
    worker.start();
    indexer?.start();
  }
  if (config.reindexOnStart && engine) requestRebuild('SEARCH_INDEX_BUILDER_MAPPINGS_REINDEX and ENABLE_STRUCTURED_PROPERTIES_SYSTEM_UPDATE are set');
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // The lines a person starting the server reads first: where to go, and with what.
  log.info(
    {
      url,
      swaggerUi: `${url}${SWAGGER_UI_PAGE}`,
      ...(config.graphiqlEnabled ? { graphiql: `${url}${GRAPHIQL_PAGE}` } : {}),
      adminToken,
      database: database.kind,
      search: search.mode,
    },
    'propgraph listening',
  );

  let closing: Promise<void> | undefined;
  const server = app;
  return {
    app: server,
    url,
    database,
    services,
    worker,
    search,
    indexer,
    close: () => {
      // Stop taking requests and let in-flight ones finish, then stop background work, then close storage.
      closing ??= (async () => {
        await server.close();
        await worker.stop();
        await indexer?.stop();
        await search.stop();
        await database.close();
        await lock.release();
      })();
      return closing;
    },
  };
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
}

/**
 * The bootstrap admin token (SPEC 10): ROOT_TOKEN when given; otherwise, when no admin
 * token exists yet, a generated one written to <DATA_DIR>/root-token (mode 0600) and
 * announced without the secret. Authentication switched off is announced loudly.
 * Returns where the admin token is, for the start-up summary.
 */
async function bootstrapAuthentication(config: Config, log: Logger, services: Services): Promise<string> {
  const generated = await services.tokens.ensureRootToken(config.rootToken);
  const file = path.join(config.dataDir, 'root-token');
  if (generated) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, `${generated}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    log.info({ file }, 'generated a root admin token; it is in this file (readable by its owner only)');
  }
  if (!config.authEnabled) {
    log.warn('AUTHENTICATION IS DISABLED (AUTH_ENABLED=false): every request acts as admin. For local experiments only.');
    return 'none needed (AUTH_ENABLED=false)';
  }
  if (config.rootToken) return 'ROOT_TOKEN';
  return existsSync(file) ? file : 'an admin token created earlier (see docs/security.md)';
}

async function searchHealth(search: SearchConnection, indexer: SearchIndexer | null): Promise<ComponentHealth> {
  if (!search.engine || !indexer) return { ok: true, mode: search.mode, enabled: false, reason: search.reason ?? null };
  const reachable = await search.engine.healthy();
  return { ok: reachable, mode: search.mode, enabled: true, reachable, types: searchableEntityTypes().length, indexer: indexer.state };
}
