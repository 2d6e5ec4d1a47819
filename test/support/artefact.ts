/**
 * The release artefact as a user gets it (docs/operations.md, "Running it"): `npm pack`
 * of this build (the compiled server and CLI, the built console and documentation
 * pages, migrations, docs), installed with `npm install --omit=dev` into an empty
 * folder, so nothing of the development tool chain can be reached. The pack takes the
 * build as it is (`--ignore-scripts`: the suites build it first with ensureBuilt and
 * ensureConsoleBuilt, as `npm pack`'s prepare would).
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureBuilt, ensureConsoleBuilt, ROOT } from './build.js';
import { tempDir } from './tempDir.js';

const run = promisify(execFile);

/** Packs this build into a fresh temporary folder; the .tgz's path. */
export async function packArtefact(): Promise<string> {
  await ensureBuilt();
  await ensureConsoleBuilt();
  const out = tempDir('propgraph-pack-');
  await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', out], { cwd: ROOT, timeout: 120_000 });
  const [tgz] = readdirSync(out).filter((f) => f.endsWith('.tgz'));
  if (!tgz) throw new Error(`npm pack left no .tgz in ${out}`);
  return path.join(out, tgz);
}

export interface InstalledArtefact {
  /** The folder installed into (node_modules/ inside). */
  readonly dir: string;
  /** The installed package's root: node_modules/propgraph. */
  readonly root: string;
  readonly installMs: number;
}

/** `npm install --omit=dev <tgz>` into an empty folder, as docs/operations.md says. */
export async function installArtefact(tgz: string): Promise<InstalledArtefact> {
  const dir = tempDir('propgraph-install-');
  const started = Date.now();
  await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--no-update-notifier', tgz], { cwd: dir, timeout: 600_000, env: { ...process.env, NODE_OPTIONS: '' } });
  return { dir, root: path.join(dir, 'node_modules', 'propgraph'), installMs: Date.now() - started };
}

/** Megabytes on disk under `dir` (du). */
export async function diskMegabytes(dir: string): Promise<number> {
  const { stdout } = await run('du', ['-sm', dir]);
  return Number(stdout.split('\t')[0]);
}

/** The packages an install holds (npm ls, less the folder itself). */
export async function installedPackages(dir: string): Promise<string[]> {
  const { stdout } = await run('npm', ['ls', '--all', '--omit=dev', '--parseable'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  return stdout
    .split('\n')
    .filter((line) => line.startsWith(path.join(dir, 'node_modules')))
    .map((line) => path.relative(path.join(dir, 'node_modules'), line));
}

/** Resident memory of a process in MB (Linux's /proc). */
export async function residentMegabytes(pid: number): Promise<number> {
  const { stdout } = await run('grep', ['VmRSS', `/proc/${pid}/status`]);
  return Math.round(Number(/(\d+)/.exec(stdout)![1]) / 1024);
}
