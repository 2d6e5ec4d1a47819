/**
 * The running parts of one propgraph process, without HTTP: the database (migrated),
 * the search engine, the services, the job worker and the search indexer. The server
 * (server.ts) puts its HTTP app in front of a runtime; the service tests use one as it
 * is, in process, on a real PostgreSQL and Meilisearch.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../platform/config.js';
import { searchableEntityTypes } from '../domain/registry/entityTypes.js';
import { lockDataDir, type DataDirLock } from '../embedded/dataDirLock.js';
import type { EarlyStart } from '../embedded/earlyStart.js';
import { OpenIdProvider } from '../identity/openIdProvider.js';
import type { Logger } from '../platform/logger.js';
import type { ComponentHealth } from '../rest/systemRoutes.js';
import { connectSearch, type SearchConnection } from '../search/connect.js';
import { SYSTEM_CALLER } from '../services/caller.js';
import { createServices, type Services } from '../services/index.js';
import { NO_WAIT, type IndexWaiter } from '../services/indexWaiter.js';
import { bulkEditHandler } from '../services/jobs/bulkEditValues.js';
import { BULK_EDIT_VALUES, CLEANUP_PROPERTY_VALUES, EVALUATE_TESTS, MIGRATE_PROPERTY_VALUES, REINDEX, SEARCH_INDEX_BUILD } from '../services/jobs/kinds.js';
import { cleanupHandler } from '../services/jobs/cleanupPropertyValues.js';
import { migrationHandler } from '../services/jobs/migratePropertyValues.js';
import { DefaultWriteService } from '../services/writes/writeService.js';
import { PolicyGate } from '../services/writes/policyGate.js';
import { AccessPolicies } from '../services/accessPolicies.js';
import { policyEpochReader } from '../store/policies.js';
import { sharedRead } from '../platform/sharedRead.js';
import { JobWorker, type JobHandler } from '../services/jobs/worker.js';
import { LocalRegistryChanges } from '../services/localRegistryChanges.js';
import { ChangeLogIndexWaiter } from '../services/searchIndex/changeLogWaiter.js';
import { SearchIndexer } from '../services/searchIndex/indexer.js';
import { IndexReadiness } from '../services/searchIndex/readiness.js';
import { rebuildIndexes } from '../services/searchIndex/rebuild.js';
import { INDEX_FORMAT } from '../search/indexFormat.js';
import { TestCatalog } from '../services/testCatalog.js';
import { runEvaluationJob } from '../services/testEvaluation/evaluationJob.js';
import { TestEvaluator } from '../services/testEvaluation/evaluator.js';
import { entityPageReader } from '../store/aspects.js';
import { entitiesIndexedBefore } from '../store/changeLog.js';
import { formatUnbuilt } from '../store/indexFormats.js';
import { openDatabase, type Database } from '../store/database.js';
import { databaseHealth } from '../store/health.js';
import { registryEpochReader } from '../store/propertyRegistry.js';
import { APP_VERSION } from '../platform/version.js';

export interface Runtime {
  readonly database: Database;
  readonly services: Services;
  readonly worker: JobWorker;
  readonly search: SearchConnection;
  /** Null when search is disabled. */
  readonly indexer: SearchIndexer | null;
  /** Whether this version's search indexes are complete; null when search is disabled. */
  readonly searchIndex: IndexReadiness | null;
  /** Keeps metadata test results current; null when TEST_EVALUATION is off. */
  readonly testEvaluator: TestEvaluator | null;
  /** Where the admin token is, for the start-up summary. */
  readonly adminToken: string;
  /** The state of the database, the search engine, the jobs and the change log (GET /health). */
  health(): Promise<Record<string, ComponentHealth>>;
  /** Starts the job worker and the indexer (unless the configuration keeps them off), and a rebuild when configured. */
  startBackgroundWork(): void;
  /** Stops background work, then closes storage and releases DATA_DIR. */
  close(): Promise<void>;
}

/**
 * Timings of the background work that no deployment needs to change, given by the service
 * tests (in process) to see in a second what a server does within a minute.
 */
export interface RuntimeTuning {
  /** How often, at most, the test evaluator records today's counts while results change (60 s). */
  readonly testCountsSnapshotMs?: number;
  /** Changes the indexer marks before it vacuums the change log (20,000). */
  readonly changeLogVacuumAfter?: number;
  /** Changes the indexer marks before it analyzes the catalog's tables (10,000). */
  readonly catalogAnalyzeAfter?: number;
}

/** `early`: DATA_DIR locked and the embedded engines started already (start.ts does, to overlap them with loading this code). */
export async function startRuntime(config: Config, log: Logger, early?: EarlyStart, tuning: RuntimeTuning = {}): Promise<Runtime> {
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
  const db = database.db;
  const engine = search.engine;
  let services: Services | undefined;
  // Built after the services, which tell it about queued work.
  let worker: JobWorker | undefined;
  const requestRebuild = (reason: string) => {
    services?.search.requestRebuild(SYSTEM_CALLER, reason).then(
      ({ jobId, created }) => log.info({ jobId, created, reason }, 'search index rebuild requested'),
      (err) => log.warn({ err: (err as Error).message, reason }, 'could not request a search index rebuild'),
    );
  };
  const readEntityPage = entityPageReader(db);
  const indexer = engine
    ? new SearchIndexer({
        db,
        engine,
        log,
        batchSize: config.searchIndexBatchSize,
        leaseSeconds: config.leaseSeconds,
        // An index created now on a database that already holds entities indexed before
        // (Meilisearch data lost, search newly enabled, a type newly searchable) must be rebuilt.
        onIndexesCreated: async (types) => {
          if (await entitiesIndexedBefore(db, types).catch(() => false)) {
            await formatUnbuilt(db, INDEX_FORMAT);
            requestRebuild('new empty index');
          }
        },
        requestBuild: requestRebuild,
        ...(tuning.changeLogVacuumAfter !== undefined ? { vacuumAfterChanges: tuning.changeLogVacuumAfter } : {}),
        ...(tuning.catalogAnalyzeAfter !== undefined ? { analyzeAfterChanges: tuning.catalogAnalyzeAfter } : {}),
      })
    : null;
  // One count of registry changes for the process: every writer adds its committed ones to it.
  const registryChanges = new LocalRegistryChanges();
  // Background writers answer at commit: the indexer takes their changes from the change log.
  const undefinedPropertyValues = config.dropUndefinedPropertyValues ? 'drop' : 'refuse';
  // The policies in force, one cached copy for the process: every writer and reader asks them.
  const access = new AccessPolicies({ db, epoch: sharedRead(policyEpochReader(db)), readEntityPage, log });
  const backgroundWrites = new DefaultWriteService({ db, log, indexWaiter: NO_WAIT, registryChanges, gate: new PolicyGate(access), urnNamespace: config.urnNamespace, undefinedPropertyValues, ...(config.historyVersionsKept !== undefined ? { historyVersionsKept: config.historyVersionsKept } : {}) });
  const testEvaluator = config.testEvaluation ? new TestEvaluator({ db, store: backgroundWrites, catalog: new TestCatalog({ db, log }), log, onChanges: () => indexer?.nudge(), snapshotEveryMs: tuning.testCountsSnapshotMs, leaseSeconds: config.leaseSeconds }) : null;
  const indexWaiter = nudgingEvaluator(indexer ? new ChangeLogIndexWaiter({ db, indexer, timeoutMs: config.indexWaitMs }) : NO_WAIT, testEvaluator);
  services = createServices({ db, access, openSnapshot: database.openSnapshot, appVersion: APP_VERSION, urnNamespace: config.urnNamespace, undefinedPropertyValues, registryEpoch: registryEpochReader(db), readEntityPage, log, indexWaiter, searchEngine: engine, searchRegistryRecheckMs: config.searchRegistryRecheckMs, historyVersionsKept: config.historyVersionsKept, authEnabled: config.authEnabled, registryChanges, groupCommit: config.writeGroupCommit, onJobQueued: () => worker?.nudge(), ...(search.reason ? { searchDisabledReason: search.reason } : {}), tokenSessionHours: config.consoleSessionHours, ...signInDeps(config, log) });
  const adminToken = await bootstrapAuthentication(config, log, services);
  // The hard delete's cleanup keeps pace with the search index one batch behind, and a migration writes as a person
  // does, each chunk waiting for the index: neither runs ahead of the indexer (flat out, job, indexer and Meilisearch
  // together held /health's p99 at 63-157 ms).
  worker = new JobWorker({ db, log, format: INDEX_FORMAT, leaseSeconds: config.leaseSeconds, ...(config.jobRetentionDays > 0 ? { retentionSeconds: config.jobRetentionDays * 86_400 } : {}) });
  worker.register(CLEANUP_PROPERTY_VALUES, cleanupHandler({ db, writes: services.writes, indexWaiter }));
  worker.register(MIGRATE_PROPERTY_VALUES, migrationHandler({ db, writes: services.writes, log }));
  const searchService = services.search;
  worker.register(BULK_EDIT_VALUES, bulkEditHandler({ db, writes: backgroundWrites, onChanges: () => indexer?.nudge(), search: searchService.enabled ? searchService : null, indexWaiter }));
  worker.register(EVALUATE_TESTS, (ctx) =>
    runEvaluationJob({ db, store: backgroundWrites, catalog: new TestCatalog({ db, log }), log, search: searchService.enabled ? searchService : null, onChanges: () => indexer?.nudge() }, ctx),
  );
  if (engine) {
    const rebuild: JobHandler = async (ctx) => {
      const outcome = await rebuildIndexes({ db, engine, log }, (p) => ctx.progress({ total: p.total, done: p.done }), ctx.stopping);
      indexer?.nudge();
      // The bundled engine is this server's alone: an earlier version's indexes serve no one now.
      if (outcome === 'done' && search.mode === 'embedded') {
        const dropped = await engine.dropOtherFormats(searchableEntityTypes().map((t) => t.name));
        if (dropped.length > 0) log.info({ dropped }, "dropped an earlier version's search indexes");
      }
      return outcome === 'done' ? 'done' : 'yield';
    };
    worker.register(SEARCH_INDEX_BUILD, rebuild);
    // Queued by propgraph 0.1.0 before an upgrade: the same rebuild, of this version's indexes.
    worker.register(REINDEX, rebuild);
  }
  const readiness = engine ? new IndexReadiness(db, INDEX_FORMAT) : null;
  const health = async (): Promise<Record<string, ComponentHealth>> => {
    try {
      // At once, not one after another: a busy server answers each in its own turn of the event loop.
      const [state, reachable] = await Promise.all([databaseHealth(db, readiness?.format), search.engine ? search.engine.healthy() : false]);
      return {
        database: { ok: true, kind: database.kind },
        search: searchHealth(search, indexer, readiness, reachable, state.indexBuilt),
        jobs: { ok: true, ...state.jobs },
        changeLog: { ok: true, pending: state.pending },
        tests: testEvaluator ? { ok: testEvaluator.state.healthy, enabled: true, ...testEvaluator.state } : { ok: true, enabled: false },
      };
    } catch (err) {
      return { database: { ok: false, kind: database.kind, error: (err as Error).message.slice(0, 200) } };
    }
  };
  return {
    database,
    services,
    worker,
    search,
    indexer,
    searchIndex: readiness,
    testEvaluator,
    adminToken,
    health,
    startBackgroundWork: () => {
      if (config.backgroundWorkers) {
        worker.start();
        indexer?.start();
        testEvaluator?.start();
      }
      if (config.reindexOnStart && engine) requestRebuild('SEARCH_INDEX_BUILDER_MAPPINGS_REINDEX and ENABLE_STRUCTURED_PROPERTIES_SYSTEM_UPDATE are set');
      // This version's indexes are built now, whichever replica holds the indexer (another version's, in a rolling upgrade).
      else if (readiness?.rebuilding) requestRebuild(`index format ${INDEX_FORMAT} not built yet`);
    },
    close: () => stopAll(worker, indexer, testEvaluator, search, database, lock),
  };
}

async function stopAll(worker: JobWorker, indexer: SearchIndexer | null, testEvaluator: TestEvaluator | null, search: SearchConnection, database: Database, lock: DataDirLock): Promise<void> {
  await worker.stop();
  await testEvaluator?.stop();
  await indexer?.stop();
  await search.stop();
  await database.close();
  await lock.release();
}

/**
 * The bootstrap admin token (docs/contract.md §10): ROOT_TOKEN when given; otherwise, when no admin
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

/** Sign-in through the configured OpenID provider (asked for nothing until first used); nothing when OIDC_ISSUER is unset. */
function signInDeps(config: Config, log: Logger): { signIn?: NonNullable<Parameters<typeof createServices>[0]['signIn']> } {
  const oidc = config.oidc;
  if (!oidc) return {};
  const provider = new OpenIdProvider({ issuer: oidc.issuer, clientId: oidc.clientId, clientSecret: oidc.clientSecret, scopes: oidc.scopes, groupsClaim: oidc.groupsClaim, log });
  log.info({ issuer: oidc.issuer, clientId: oidc.clientId, client: oidc.clientSecret ? 'confidential' : 'public' }, 'sign-in through OpenID Connect is on');
  return {
    signIn: {
      provider,
      rules: { userClaim: oidc.userClaim, groupsClaim: oidc.groupsClaim, groupScopes: oidc.groupScopes },
      providerName: oidc.providerName,
      sessionHours: oidc.sessionHours,
      cliSessionDays: oidc.cliSessionDays,
    },
  };
}

/** A write waiting for the index also wakes the test evaluator, so its results follow as soon as the change commits. */
function nudgingEvaluator(waiter: IndexWaiter, evaluator: TestEvaluator | null): IndexWaiter {
  if (!evaluator) return waiter;
  return {
    indexing: waiter.indexing,
    waitFor: (changeIds) => {
      if (changeIds.length > 0) evaluator.nudge();
      return waiter.waitFor(changeIds);
    },
  };
}

function searchHealth(search: SearchConnection, indexer: SearchIndexer | null, readiness: IndexReadiness | null, reachable: boolean, indexBuilt: boolean | null): ComponentHealth {
  if (!search.engine || !indexer || !readiness) return { ok: true, mode: search.mode, enabled: false, reason: search.reason ?? null };
  const index = readiness.observed(indexBuilt);
  return { ok: reachable, mode: search.mode, enabled: true, reachable, types: searchableEntityTypes().length, index, indexer: indexer.state };
}
