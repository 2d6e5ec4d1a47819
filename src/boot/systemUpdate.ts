/**
 * `npm run system-update` (docs/contract.md §5): rebuilds the search indexes from the database,
 * with progress on the terminal. When a server answers (PROPGRAPH_SERVER, `--server`,
 * or this configuration's HOST:PORT) it runs the rebuild as that server's job exactly
 * as `propgraph system-update` does (cli/rebuildJob.ts); only when none answers does it
 * open the database and the search engine itself and rebuild in this process, under
 * the data directory's lock (a server that holds it but does not answer is named).
 */
import { ConfigError, loadClientEnv, loadConfig, type Config } from '../platform/config.js';
import { DataDirInUseError, lockDataDir } from '../embedded/dataDirLock.js';
import { CliError, EXIT } from '../cli/errors.js';
import { HttpClient } from '../cli/httpClient.js';
import { followRebuild, startRebuild } from '../cli/rebuildJob.js';
import { createLogger } from '../platform/logger.js';
import { connectSearch } from '../search/connect.js';
import { rebuildIndexes } from '../services/searchIndex/rebuild.js';
import { openDatabase } from '../store/database.js';

const tty = process.stdout.isTTY === true;
let lastLine = '';

function progress(done: number, total: number | null): void {
  const pct = total ? ` (${Math.floor((100 * done) / Math.max(total, 1))}%)` : '';
  const line = `Rebuilding search indexes: ${done}${total !== null ? `/${total}` : ''} entities${pct}`;
  if (line === lastLine) return;
  lastLine = line;
  if (tty) process.stdout.write(`\r${line}`);
  else console.log(line);
}

function finishLine(): void {
  if (tty && lastLine) process.stdout.write('\n');
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : process.argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

/** Runs the rebuild as a job of a live server (cli/rebuildJob.ts); undefined when no server answers. */
async function viaServer(server: string, token: string | undefined): Promise<number | undefined> {
  const http = new HttpClient({ server, ...(token ? { token } : {}) });
  let id: string;
  try {
    id = await startRebuild(http);
  } catch (err) {
    if (err instanceof CliError && err.exitCode === EXIT.unreachable) return undefined;
    if (!(err instanceof CliError)) throw err;
    console.error(`system-update: ${server} refused: ${err.message}`);
    return 1;
  }
  console.log(`System update: rebuild job ${id} on ${server}`);
  const started = Date.now();
  try {
    const job = await followRebuild(http, id, {
      progress: (job) => progress(job.done, job.total),
      retrying: (lastError) => {
        finishLine();
        console.error(`(the server retries the rebuild after: ${lastError})`);
      },
    });
    finishLine();
    console.log(`System update done: ${job.done} entities indexed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    finishLine();
    console.error(err.message);
    return 1;
  }
}

async function inProcess(config: Config): Promise<number> {
  let lock;
  try {
    lock = await lockDataDir(config.dataDir);
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) throw err;
    console.error(`system-update: ${err.message}; it does not answer at the configured address, so pass --server <url>`);
    return 2;
  }
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, config.logFormat);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, embeddedBinDir: config.embeddedPostgresBinDir, poolSize: 4, log });
  const search = await connectSearch(config, log);
  try {
    if (!search.engine) {
      console.error(`system-update: search is disabled (${search.reason}); nothing to rebuild`);
      return 2;
    }
    console.log('System update: no server answered; rebuilding in this process');
    const started = Date.now();
    let indexed = 0;
    await rebuildIndexes({ db: database.db, engine: search.engine, log }, async (p) => {
      indexed = p.done;
      progress(p.done, p.total);
    });
    finishLine();
    console.log(`System update done: ${indexed} entities indexed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  } finally {
    await search.stop();
    await database.close();
    await lock.release();
  }
}

async function main(): Promise<number> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`system-update: ${err.message}`);
      return 2;
    }
    throw err;
  }
  const client = loadClientEnv();
  const server = (argValue('--server') ?? client.server ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`).replace(/\/+$/, '').replace(/\/gms$/, '');
  if (config.reindexOnStart) console.log('SEARCH_INDEX_BUILDER_MAPPINGS_REINDEX and ENABLE_STRUCTURED_PROPERTIES_SYSTEM_UPDATE are set: servers also rebuild at start-up');
  return (await viaServer(server, argValue('--token') ?? client.token)) ?? (await inProcess(config));
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error('system-update failed:', err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
