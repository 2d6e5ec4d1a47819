/**
 * The embedded engines started before the rest of the server's code is loaded. Loading
 * that code (Fastify, Apollo, the services) takes about a second of one core;
 * initialising and starting PostgreSQL and Meilisearch take as long in processes of
 * their own. Started first, they run while the code loads instead of after it.
 * Only light modules may be imported here: this runs before server.ts is loaded.
 */
import type { Config } from '../platform/config.js';
import type { Logger } from '../platform/logger.js';
import { lockDataDir, type DataDirLock } from './dataDirLock.js';
import { startConfiguredMeilisearch, type EmbeddedMeilisearch } from './meilisearch.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './postgres.js';

export interface EarlyStart {
  /** DATA_DIR, locked before anything in it is touched. */
  readonly lock: DataDirLock;
  /** Null when DATABASE_URL names an external PostgreSQL. */
  readonly postgres: Promise<EmbeddedPostgres> | null;
  /** Null when Meilisearch is external or disabled. */
  readonly meilisearch: Promise<EmbeddedMeilisearch> | null;
}

export async function startEnginesEarly(config: Config, log: Logger): Promise<EarlyStart> {
  const lock = await lockDataDir(config.dataDir);
  const postgres = config.databaseUrl ? null : startEmbeddedPostgres({ dataDir: config.dataDir, log, binDir: config.embeddedPostgresBinDir });
  const meilisearch = config.meiliUrl || !config.meiliEmbedded ? null : startConfiguredMeilisearch(config, log);
  // Their failures are handled where they are awaited (server.ts); until then they must
  // not count as unhandled.
  postgres?.catch(() => undefined);
  meilisearch?.catch(() => undefined);
  return { lock, postgres, meilisearch };
}
