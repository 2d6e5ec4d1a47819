/**
 * Temporary directories for servers' DATA_DIRs. Searchable by everyone: under root
 * the embedded PostgreSQL runs as the user postgres, which must reach its cluster
 * directory inside (mkdtemp makes directories only their owner can enter). Removed at
 * the end of the run (runTempDirs.mjs).
 */
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { noteRunTempDir } from './runTempDirs.mjs';

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  noteRunTempDir(dir);
  return dir;
}
