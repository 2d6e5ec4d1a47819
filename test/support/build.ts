/**
 * Makes sure dist/ reflects the sources before a suite runs the built server or CLI
 * as a subprocess. Suites run in parallel workers, so the build takes a lock and is
 * skipped when dist/ is already newer than every source file.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sleep } from './waitFor.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MARKER = path.join(ROOT, 'dist/main.js');
/** The CLI as the `propgraph` command runs it: one file, made from tsc's output (src/makeBundles.mjs). */
export const CLI_BUNDLE = path.join(ROOT, 'dist/cli/bundle.js');
/** The server's start as main.js runs it, bundled from tsc's output (src/makeBundles.mjs). */
export const SERVER_BUNDLE = path.join(ROOT, 'dist/bundle/start.js');

const CONSOLE_SOURCES = path.join(ROOT, 'src/console');

function newestSource(dir: string, matches: (name: string) => boolean = (name) => name.endsWith('.ts')): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    // The web console is built by Vite (ensureConsoleBuilt), not by tsc.
    if (entry.isDirectory() && full !== CONSOLE_SOURCES) newest = Math.max(newest, newestSource(full, matches));
    else if (entry.isFile() && matches(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function builtIsFresh(): boolean {
  try {
    return statSync(MARKER).mtimeMs >= newestSource(path.join(ROOT, 'src')) && existsSync(CLI_BUNDLE) && existsSync(SERVER_BUNDLE);
  } catch {
    return false;
  }
}

export async function ensureBuilt(): Promise<void> {
  if (builtIsFresh()) return;
  const lock = path.join(ROOT, 'dist', '.test-build.lock');
  mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (builtIsFresh()) return;
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      await sleep(250);
    }
  }
  try {
    // Asynchronously: the suite may run a server in this process that must keep answering.
    if (!builtIsFresh()) {
      // The package's own build (package.json): tsc, the pages' browser files, the CLI's
      // bundle and the executable bits, one recipe for a user's `npm install` and the suites.
      await promisify(execFile)('npm', ['run', 'build', '--silent'], { cwd: ROOT });
      // tsc rewrites only the outputs that changed: when main.js did not, its old time would
      // make dist/ look stale to every later suite, each running tsc again (35 runs, 140 s
      // of CPU in one `npm test`, after a source was rewritten unchanged).
      const now = new Date();
      utimesSync(MARKER, now, now);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

const CONSOLE_MARKER = path.join(ROOT, 'dist/console/index.html');

function consoleIsFresh(): boolean {
  try {
    const newest = Math.max(newestSource(CONSOLE_SOURCES, () => true), newestSource(path.join(ROOT, 'src/domain')));
    return statSync(CONSOLE_MARKER).mtimeMs >= newest;
  } catch {
    return false;
  }
}

/** Builds the web console (dist/console) when its sources, or the domain rules it bundles, changed since. */
export async function ensureConsoleBuilt(): Promise<void> {
  if (consoleIsFresh()) return;
  await promisify(execFile)(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'src/console/vite.config.ts'], { cwd: ROOT });
}
