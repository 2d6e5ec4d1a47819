/**
 * Assembles a running server from a Config: database (migrated), services, the job
 * worker and the HTTP app. Used by main.ts and by the tests, which start real
 * servers on free ports.
 */
import { writeFileSync, chmodSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { createServices, type Services } from './services/index.js';
import { NO_WAIT } from './services/indexWaiter.js';
import { JobWorker } from './services/jobs/worker.js';
import { openDatabase, type Database } from './store/database.js';
import { pendingCount } from './store/changeLog.js';
import type { ComponentHealth } from './rest/systemRoutes.js';

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly database: Database;
  readonly services: Services;
  readonly worker: JobWorker;
  close(): Promise<void>;
}

export async function startServer(config: Config, log: Logger): Promise<RunningServer> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize, log });
  const db = database.prisma;
  const services = createServices({ db, log, indexWaiter: NO_WAIT });
  const worker = new JobWorker({ db, log });
  await bootstrapAuthentication(config, log, services);
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp({
      config,
      log,
      services,
      version: packageVersion(),
      health: {
        health: async (): Promise<Record<string, ComponentHealth>> => {
          try {
            await database.sql.query('SELECT 1');
            return {
              database: { ok: true, kind: database.kind },
              jobs: { ok: true, ...(await services.jobs.counts()) },
              changeLog: { ok: true, pending: await pendingCount(db) },
            };
          } catch (err) {
            return { database: { ok: false, kind: database.kind, error: (err as Error).message.slice(0, 200) } };
          }
        },
      },
    });
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app?.close().catch(() => undefined);
    await database.close();
    throw err;
  }
  if (config.backgroundWorkers) worker.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  log.info({ url, database: database.kind }, 'propgraph listening');

  let closing: Promise<void> | undefined;
  const server = app;
  return {
    app: server,
    url,
    database,
    services,
    worker,
    close: () => {
      // Stop taking requests and let in-flight ones finish, then stop background work, then close storage.
      closing ??= (async () => {
        await server.close();
        await worker.stop();
        await database.close();
      })();
      return closing;
    },
  };
}

/** The package's version; src/server.ts and dist/server.js both sit one level below package.json. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
}

/**
 * The bootstrap admin token (SPEC 10): ROOT_TOKEN when given; otherwise, when no admin
 * token exists yet, a generated one written to <DATA_DIR>/root-token (mode 0600) and
 * announced without the secret. Authentication switched off is announced loudly.
 */
async function bootstrapAuthentication(config: Config, log: Logger, services: Services): Promise<void> {
  const generated = await services.tokens.ensureRootToken(config.rootToken);
  if (config.rootToken) log.info('root admin token taken from ROOT_TOKEN');
  if (generated) {
    const file = path.join(config.dataDir, 'root-token');
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, `${generated}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    log.warn({ file }, 'generated a root admin token; it is in this file (readable by its owner only)');
  }
  if (!config.authEnabled) {
    log.warn('AUTHENTICATION IS DISABLED (AUTH_ENABLED=false): every request acts as admin. For local experiments only.');
  }
}
