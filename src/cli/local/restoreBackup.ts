/**
 * `propgraph restore --from FILE [--force]`: loads a backup into the database this
 * configuration names (DATABASE_URL, or DATA_DIR's embedded PostgreSQL) with no server
 * running on it, all or nothing (store/backup/restore.ts), then rebuilds the search
 * index from the database with progress. When the search engine cannot be reached from
 * here (a server still holds DATA_DIR and its bundled Meilisearch, say), the rebuild is
 * queued as the reindex job instead, which the next server to start runs, with its
 * progress at GET /openapi/v3/jobs/{id}.
 */
import { existsSync } from 'node:fs';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { printLine, type Terminal } from '../terminal.js';
import type { Config } from '../../platform/config.js';
import { BackupFormatError, type BackupManifest } from '../../domain/backupFormat.js';
import { indexBuildRequest } from '../../domain/jobKinds.js';
import { INDEX_FORMAT } from '../../search/indexFormat.js';
import { DataDirInUseError, lockDataDir, type DataDirLock } from '../../embedded/dataDirLock.js';
import { guardEngines, type OrphanGuard } from '../../embedded/orphanGuard.js';
import type { Logger } from '../../platform/logger.js';
import { connectSearch } from '../../search/connect.js';
import { rebuildIndexes } from '../../services/searchIndex/rebuild.js';
import { RestoreRefusedError, restoreDatabase } from '../../store/backup/restore.js';
import { openDatabase } from '../../store/database.js';
import { enqueueJob } from '../../store/jobs.js';
import { DataVersionError } from '../../store/dataVersion.js';
import { APP_VERSION } from '../../platform/version.js';
import { localConfig, localLogger, openLocalDatabase, ProgressLine } from './localDatabase.js';

export async function restoreBackup(terminal: Terminal, options: { from: string; force: boolean }): Promise<ExitCode> {
  if (!existsSync(options.from)) throw new CliError(`restore: ${options.from} does not exist`, EXIT.usage);
  const config = localConfig();
  const log = localLogger(config);
  const started = Date.now();
  const target = await openLocalDatabase(config, log, 'restore');
  const where = target.kind === 'embedded' ? `the embedded PostgreSQL in ${config.dataDir}` : 'DATABASE_URL';
  const progress = new ProgressLine(terminal);
  let manifest: BackupManifest;
  try {
    const { readBackupFile } = await import('./backupFile.js');
    manifest = await restoreDatabase(target.url, await readBackupFile(options.from), {
      force: options.force,
      log,
      appVersion: APP_VERSION,
      onHeader: (h) => printLine(terminal.stdout, `Restoring a backup of propgraph ${h.propgraph} (PostgreSQL ${h.postgres}, taken ${h.createdOn}) into ${where}`),
      onProgress: (p) => {
        if (p.phase === 'loaded') {
          progress.clear();
          printLine(terminal.stdout, `  ${p.table}: ${p.rows} rows`);
        } else progress.show(`  ${p.table}: ${p.rows.toLocaleString('en')} rows`);
      },
    });
    progress.clear();
    printLine(terminal.stdout, `Database restored and checked (sha256 ${manifest.sha256}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await rebuildSearch(terminal, config, target.url, target.kind, log);
  } catch (err) {
    progress.clear();
    if (err instanceof RestoreRefusedError || err instanceof BackupFormatError || err instanceof DataVersionError) {
      throw new CliError(`restore: ${err.message}. Nothing was changed.`);
    }
    throw err;
  } finally {
    await target.close();
  }
  return EXIT.ok;
}

/** Rebuilds the index here when the search engine is reachable from this process; otherwise queues the reindex job. */
async function rebuildSearch(terminal: Terminal, config: Config, url: string, kind: 'embedded' | 'external', log: Logger): Promise<void> {
  // The bundled Meilisearch lives in DATA_DIR: usable only while no server holds it.
  const bundled = !config.meiliUrl && config.meiliEmbedded;
  let lock: DataDirLock | undefined;
  let guard: OrphanGuard | undefined;
  let reachable = !bundled || kind === 'embedded';
  if (bundled && kind === 'external') {
    try {
      lock = await lockDataDir(config.dataDir);
      // Killed, the restore takes the Meilisearch it starts along (embedded/orphanGuard.ts).
      guard = guardEngines(config.dataDir);
      reachable = true;
    } catch (err) {
      if (!(err instanceof DataDirInUseError)) throw err;
    }
  }
  const database = await openDatabase({ databaseUrl: url, dataDir: config.dataDir, poolSize: 4, log });
  try {
    // The engine's own lines (an index not found while a rebuild clears its scratch index) are not the operator's concern here.
    const search = reachable ? await connectSearch(config, log.child({}, { level: 'fatal' })) : undefined;
    try {
      if (!search?.engine) {
        const { id } = await database.db.transaction((tx) => enqueueJob(tx, indexBuildRequest('restore', INDEX_FORMAT)));
        printLine(terminal.stdout, `Search index: the rebuild is queued as job ${id}; the next server to start on this database runs it (progress at GET /openapi/v3/jobs/${id}).`);
        return;
      }
      const progress = new ProgressLine(terminal);
      const started = Date.now();
      let indexed = 0;
      await rebuildIndexes({ db: database.db, engine: search.engine, log }, async (p) => {
        indexed = p.done;
        progress.show(`Rebuilding the search index: ${p.done}/${p.total} entities`);
      });
      progress.clear();
      printLine(terminal.stdout, `Search index rebuilt from the database: ${indexed} entities in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } finally {
      await search?.stop();
    }
  } finally {
    await database.close();
    await lock?.release();
    guard?.release();
  }
}
