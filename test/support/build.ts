/** Makes sure dist/ reflects the sources before a suite runs the built server or CLI. */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let built = false;

export function ensureBuilt(): void {
  if (built) return;
  // Incremental: fast when nothing changed since the last build.
  execFileSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(ROOT, 'tsconfig.json')], { cwd: ROOT, stdio: 'pipe' });
  built = true;
}
