/**
 * The guardian of a local command's engines (orphanGuard.ts): `node orphanGuardian.js
 * COMMAND_PID DATA_DIR CLUSTER_DIR...`. Waits for its standard input to end; a `release`
 * line first means the command ended normally. Otherwise, once the command is gone, it
 * takes DATA_DIR's lock and stops the PostgreSQL and the Meilisearch left running there.
 */
import { createLogger } from '../platform/logger.js';
import { sleep } from '../platform/time.js';
import { isAlive } from './childProcess.js';
import { DataDirInUseError, lockDataDir, type DataDirLock } from './dataDirLock.js';
import { stopOrphanMeilisearch } from './meilisearch.js';
import { stopOrphanPostgres } from './postgres.js';

const [commandPid, dataDir, ...clusterDirs] = process.argv.slice(2);
/** The command; the pipe can close before the kernel has let go of the command's DATA_DIR lock, so the guardian waits for the command to be gone. */
const command = Number(commandPid);

/** DATA_DIR's lock once the command is gone and the kernel has let go of its lock; undefined when a server holds it. */
async function lockOnceGone(): Promise<DataDirLock | undefined> {
  for (let waited = 0; isAlive(command) && waited < 30_000; waited += 50) await sleep(50);
  for (let tries = 0; ; tries++) {
    try {
      return await lockDataDir(dataDir!);
    } catch (err) {
      // Still held a little while after the command died; held longer, by a server that started since.
      if (!(err instanceof DataDirInUseError) || tries >= 40) return undefined;
      await sleep(50);
    }
  }
}
let released = false;
let acting = false;

async function stopWhatWasLeft(): Promise<void> {
  if (released || acting || !dataDir) return;
  acting = true;
  const lock = await lockOnceGone().catch(() => undefined);
  // A server holds DATA_DIR now: its engines are its own.
  if (!lock) process.exit(0);
  const log = createLogger('silent', 'json');
  for (const clusterDir of clusterDirs) await stopOrphanPostgres(clusterDir, log).catch(() => undefined);
  await stopOrphanMeilisearch(dataDir, log).catch(() => undefined);
  await lock.release();
  process.exit(0);
}

// A terminal's hang-up or Ctrl-C must not stop the guardian before it has acted.
process.on('SIGINT', () => undefined);
process.on('SIGHUP', () => undefined);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text: string) => {
  if (text.includes('release')) {
    released = true;
    process.exit(0);
  }
});
process.stdin.on('end', () => void stopWhatWasLeft());
process.stdin.on('close', () => void stopWhatWasLeft());
process.stdin.on('error', () => void stopWhatWasLeft());
