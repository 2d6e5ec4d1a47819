/**
 * One server per data directory (docs/architecture.md, Storage). Before anything in DATA_DIR
 * is touched, the server takes an exclusive lock on it; a second server on the same
 * directory is refused at once, told the PID that holds it, and changes nothing (in
 * particular it never stops the first server's PostgreSQL or Meilisearch).
 *
 * On Linux the lock is a Unix socket in the abstract namespace named after the
 * directory's real path: binding it is atomic, and the kernel releases it when the
 * holder dies, even by SIGKILL, so no stale lock survives a crash. The holder answers
 * a connection with its PID. Elsewhere a pid file created exclusively stands in,
 * taken over when the PID it names is no longer alive.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import path from 'node:path';
import { isAlive } from './childProcess.js';

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number | undefined,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by another propgraph server${pid ? ` (PID ${pid})` : ''}; ` +
        'stop that server first, or give this one another DATA_DIR',
    );
  }
}

export interface DataDirLock {
  release(): Promise<void>;
}

export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  const real = realpathSync(dataDir);
  return process.platform === 'linux' ? socketLock(real) : pidFileLock(real);
}

async function socketLock(dataDir: string): Promise<DataDirLock> {
  const name = `\0propgraph-data-dir-${createHash('sha256').update(dataDir).digest('hex').slice(0, 40)}`;
  const server: Server = createServer((socket) => socket.end(`${process.pid}\n`));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(name, () => resolve());
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    throw new DataDirInUseError(dataDir, await holderPid(name));
  }
  // The lock must not keep the process alive on its own.
  server.unref();
  return { release: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function holderPid(name: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const socket = connect(name);
    const done = () => {
      socket.destroy();
      const pid = Number(text.trim());
      resolve(Number.isInteger(pid) && pid > 0 ? pid : undefined);
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', done);
    socket.on('error', done);
    socket.setTimeout(2000, done);
  });
}

async function pidFileLock(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, 'server.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return { release: () => rm(file, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) throw new DataDirInUseError(dataDir, pid);
      // Left by a server that died: take it over.
      await rm(file, { force: true });
    }
  }
  throw new DataDirInUseError(dataDir, undefined);
}
