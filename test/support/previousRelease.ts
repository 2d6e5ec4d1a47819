/**
 * An earlier release, built as a user installs it: its commit (src/domain/releases.ts:
 * a clone of main need not hold the tags, but holds every release's commit) exported
 * with `git archive` into a directory of its own, then installed there from its own
 * lockfile (which generates and builds it, as for any install). The build is kept per
 * commit under the system's temporary directory, so only the first run pays for it;
 * jest workers building the same commit at once wait for one another.
 *
 * The install starts from this checkout's node_modules, hard-linked, and `npm install`
 * brings it to the release's lockfile: npm replaces a package that differs by unpacking
 * it afresh (new files, so the links to ours are dropped, never written through) and
 * leaves the others alone. The tree is the one `npm ci` makes, for a fraction of the
 * work: `npm ci` unpacks every package (78 s of wall time and 110 s of CPU for one
 * release here, three releases per cold run), where the linked install takes 20-25 s,
 * most of it the release's own build (docs/decisions.md, "A previous release is
 * installed from our modules, linked"). npm's record of the tree
 * (node_modules/.package-lock.json) and our Node downloads (node_modules/.cache) are
 * unlinked first: npm rewrites the one, and the other is not the release's.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Release } from '../../src/domain/releases.js';
import { ROOT } from './build.js';
import { sleep } from './waitFor.js';

const CACHE = path.join(tmpdir(), 'propgraph-release-builds');

export interface ReleaseBuild {
  readonly release: Release;
  /** Its package root (dist/ inside). */
  readonly root: string;
}

/** The commit is in this clone; false in a shallow one. */
export async function hasCommit(commit: string): Promise<boolean> {
  try {
    await promisify(execFile)('git', ['-C', ROOT, 'cat-file', '-e', `${commit}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

function run(command: string, args: string[], cwd: string, log: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      writeFileSync(log, output);
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} in ${cwd} exited ${code}:\n${output.slice(-3000)}`));
    });
  });
}

/**
 * Installs the release in `work` (its sources in place): from this checkout's modules,
 * hard-linked, when there are some and the link is possible; from nothing otherwise.
 */
async function installFromLinkedModules(work: string): Promise<void> {
  const ours = path.join(ROOT, 'node_modules');
  const theirs = path.join(work, 'node_modules');
  let linked = false;
  if (existsSync(ours)) {
    try {
      await run('cp', ['-al', ours, theirs], work, `${work}.link.log`);
      for (const own of ['.package-lock.json', '.cache']) rmSync(path.join(theirs, own), { recursive: true, force: true });
      linked = true;
    } catch {
      rmSync(theirs, { recursive: true, force: true });
    }
  }
  if (linked) await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline'], work, `${work}.npm-install.log`);
  else await run('npm', ['ci', '--no-audit', '--no-fund'], work, `${work}.npm-ci.log`);
}

export async function buildRelease(release: Release): Promise<ReleaseBuild> {
  const root = path.join(CACHE, release.commit);
  const ready = path.join(root, '.propgraph-release-ready');
  if (existsSync(ready)) return { release, root };
  if (!(await hasCommit(release.commit))) {
    throw new Error(`release ${release.version}'s commit ${release.commit} is not in this clone (a shallow clone?); fetch the full history to run the upgrade suite`);
  }
  mkdirSync(CACHE, { recursive: true });
  const lock = `${root}.lock`;
  for (const deadline = Date.now() + 900_000; ; ) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(ready)) return { release, root };
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      await sleep(1000);
    }
  }
  try {
    if (existsSync(ready)) return { release, root };
    const work = `${root}.building`;
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    await run('sh', ['-c', `git -C "${ROOT}" archive ${release.commit} | tar -x -C "${work}"`], work, `${work}.archive.log`);
    await installFromLinkedModules(work);
    writeFileSync(path.join(work, '.propgraph-release-ready'), `${release.version} ${release.commit}\n`);
    rmSync(root, { recursive: true, force: true });
    renameSync(work, root);
    return { release, root };
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
