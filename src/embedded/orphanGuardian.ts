/**
 * The guardian of a local command's engines (orphanGuard.ts): `node orphanGuardian.js
 * DATA_DIR CLUSTER_DIR...`. Waits for its standard input to end; a `release` line first means the
 * command ended normally. Otherwise it takes DATA_DIR's lock and stops the PostgreSQL and
 * the Meilisearch left running there.
 */
import { createLogger } from '../logger.js';
import { lockDataDir } from './dataDirLock.js';
import { stopOrphanMeilisearch } from './meilisearch.js';
import { stopOrphanPostgres } from './postgres.js';

const [dataDir, ...clusterDirs] = process.argv.slice(2);
let released = false;
let acting = false;

async function stopWhatWasLeft(): Promise<void> {
  if (released || acting || !dataDir) return;
  acting = true;
  let lock;
  try {
    lock = await lockDataDir(dataDir);
  } catch {
    // A server holds DATA_DIR now: its engines are its own.
    process.exit(0);
  }
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
