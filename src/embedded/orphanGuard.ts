/**
 * The bundled engines a local command starts (`propgraph restore --from`, `upgrade-data`)
 * die with it (issue #46 item 16: a SIGKILLed restore left its PostgreSQL and
 * Meilisearch running). The server leaves that to its next start, which stops what a
 * killed server left on its DATA_DIR; a command may never run again. So a command that
 * starts engines starts a guardian beside it (orphanGuardian.ts), in a session of its
 * own (Ctrl-C at the terminal does not reach it), holding the read end of a pipe from
 * the command. When the command ends normally it says so and the guardian leaves; when
 * it dies in any other way the pipe closes, and the guardian takes DATA_DIR's lock (a
 * server that took it first owns the engines, and the guardian leaves them) and stops
 * what the command left running there, as the next start would.
 */
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface OrphanGuard {
  /** The command ends normally (its engines stopped): the guardian leaves without touching DATA_DIR. */
  release(): void;
}

/** Guards DATA_DIR's Meilisearch and the PostgreSQL clusters named (default: DATA_DIR/postgres). */
export function guardEngines(dataDir: string, clusterDirs: readonly string[] = [path.join(dataDir, 'postgres')]): OrphanGuard {
  const entry = fileURLToPath(new URL('./orphanGuardian.js', import.meta.url));
  const child = spawn(process.execPath, [entry, String(process.pid), dataDir, ...clusterDirs], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  // Neither the guardian nor its pipe keeps the command alive.
  child.unref();
  const pipe = child.stdin as unknown as Socket | null;
  pipe?.unref();
  return {
    release: () => {
      // Held again until the word is written: a command exiting at once would otherwise drop it.
      pipe?.ref();
      pipe?.end('release\n');
    },
  };
}
