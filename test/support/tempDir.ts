/**
 * Temporary directories for servers' DATA_DIRs. Searchable by everyone: under root
 * the embedded PostgreSQL runs as the user postgres, which must reach its cluster
 * directory inside (mkdtemp makes directories only their owner can enter).
 */
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}
