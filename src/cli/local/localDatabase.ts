/**
 * The local commands (`propgraph restore --from`, `propgraph upgrade-data`) work on a
 * database with no server running on it, so they open it themselves, as `npm run
 * system-update` does when no server answers: DATABASE_URL when set, otherwise the
 * embedded PostgreSQL of DATA_DIR, started under the data directory's lock (a running
 * server holds it, and is named), with a guardian that stops the engines if the command is
 * killed (embedded/orphanGuard.ts). These are the only commands of the CLI that do not
 * go through a server's HTTP API (docs/decisions.md, "Restore and upgrade-data run
 * locally").
 */
import { ConfigError, loadConfig, type Config } from '../../platform/config.js';
import { DataDirInUseError, lockDataDir, type DataDirLock } from '../../embedded/dataDirLock.js';
import { guardEngines } from '../../embedded/orphanGuard.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../embedded/postgres.js';
import { createLogger, type Logger } from '../../platform/logger.js';
import { CliError, EXIT } from '../errors.js';
import type { Terminal } from '../terminal.js';

export function localConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT.usage);
    throw err;
  }
}

/** Warnings and errors only: the command prints its own progress. */
export function localLogger(config: Config): Logger {
  return createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, config.logFormat);
}

export async function lockForLocalWork(config: Config, command: string): Promise<DataDirLock> {
  try {
    return await lockDataDir(config.dataDir);
  } catch (err) {
    if (err instanceof DataDirInUseError) throw new CliError(`${command}: ${err.message}`, EXIT.failed);
    throw err;
  }
}

export interface LocalDatabase {
  readonly url: string;
  readonly kind: 'embedded' | 'external';
  /** Stops the embedded PostgreSQL and releases the lock, as far as this opened them. */
  close(): Promise<void>;
}

/** DATABASE_URL as it is, or DATA_DIR's embedded PostgreSQL started (and the directory locked) for this command. */
export async function openLocalDatabase(config: Config, log: Logger, command: string): Promise<LocalDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl, kind: 'external', close: async () => {} };
  const lock = await lockForLocalWork(config, command);
  // Killed, this command takes its PostgreSQL along (embedded/orphanGuard.ts).
  const guard = guardEngines(config.dataDir);
  let embedded: EmbeddedPostgres;
  try {
    embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, log, binDir: config.embeddedPostgresBinDir });
    await embedded.durable;
  } catch (err) {
    await lock.release();
    guard.release();
    throw new CliError(`${command}: ${(err as Error).message}`);
  }
  return {
    url: embedded.url,
    kind: 'embedded',
    close: async () => {
      await embedded.stop();
      await lock.release();
      guard.release();
    },
  };
}

const CLEAR_LINE = '\r\u001b[K';

/** A progress line redrawn in place on a terminal, silent elsewhere (the summary lines say the same). */
export class ProgressLine {
  private shownAt = 0;

  constructor(private readonly terminal: Terminal) {}

  show(text: string): void {
    if (!this.terminal.stderr.isTTY || Date.now() - this.shownAt < 100) return;
    this.shownAt = Date.now();
    this.terminal.stderr.write(`${CLEAR_LINE}${text}`);
  }

  clear(): void {
    if (this.terminal.stderr.isTTY) this.terminal.stderr.write(CLEAR_LINE);
  }
}
