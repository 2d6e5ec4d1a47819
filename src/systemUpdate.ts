/**
 * `npm run system-update` (SPEC 5): rebuilds the search indexes from the database,
 * with progress on the terminal. When a server answers (PROPGRAPH_SERVER, `--server`,
 * or this configuration's HOST:PORT) it asks that server to run the rebuild as a job
 * and follows its progress; otherwise it opens the database and the search engine
 * itself and rebuilds in this process.
 */
import { ConfigError, loadClientEnv, loadConfig, type Config } from './config.js';
import { setUrnNamespace } from './domain/typeUrns.js';
import { DataDirInUseError, lockDataDir } from './embedded/dataDirLock.js';
import { createLogger } from './logger.js';
import { connectSearch } from './search/connect.js';
import { rebuildIndexes } from './services/searchIndex/rebuild.js';
import { openDatabase } from './store/database.js';

interface JobView {
  id: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  total: number | null;
  done: number;
  lastError: string | null;
}

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

/** Runs the rebuild on a live server; undefined when no server answers. */
async function viaServer(server: string, token: string | undefined): Promise<number | undefined> {
  const headers: Record<string, string> = { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  let res: Response;
  try {
    res = await fetch(`${server}/openapi/v3/system/update`, { method: 'POST', headers });
  } catch {
    return undefined;
  }
  const body = (await res.json().catch(() => ({}))) as { jobId?: string; message?: string; error?: string };
  if (!res.ok || !body.jobId) {
    console.error(`system-update: ${server} refused: ${res.status} ${body.message ?? body.error ?? ''}`);
    return 1;
  }
  console.log(`System update: rebuild job ${body.jobId} on ${server}`);
  const started = Date.now();
  let failingSince: number | undefined;
  let lastRetryError: string | undefined;
  for (;;) {
    let job: JobView;
    try {
      const res = await fetch(`${server}/openapi/v3/jobs/${body.jobId}`, { headers });
      if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
      job = (await res.json()) as JobView;
      failingSince = undefined;
    } catch (err) {
      // The job is durable: a server restart resumes it. Give up only after a minute without an answer.
      failingSince ??= Date.now();
      if (Date.now() - failingSince > 60_000) {
        finishLine();
        console.error(`System update: lost track of job ${body.jobId}: ${(err as Error).message}`);
        return 1;
      }
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    progress(job.done, job.total);
    if (job.status === 'done') {
      finishLine();
      console.log(`System update done: ${job.done} entities indexed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return 0;
    }
    if (job.status === 'failed') {
      finishLine();
      console.error(`System update failed: ${job.lastError ?? 'unknown error'}`);
      return 1;
    }
    if (job.lastError && job.status === 'pending' && job.lastError !== lastRetryError) {
      lastRetryError = job.lastError;
      finishLine();
      console.error(`(the server retries the rebuild after: ${job.lastError})`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function inProcess(config: Config): Promise<number> {
  // The documents it rebuilds show type URNs as the server does.
  setUrnNamespace(config.urnNamespace);
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
    await rebuildIndexes({ db: database.prisma, engine: search.engine, log }, async (p) => {
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
