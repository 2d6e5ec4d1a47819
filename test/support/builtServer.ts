/**
 * The built service as a child process, for tests that kill it or run its commands:
 * compiled once per run into test-artifacts/search/dist (so it never races a build of dist/),
 * started like `npm start`, its URL taken from its structured log.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// dist/store/migrate.js finds ../../prisma/migrations: the build sits one level down, beside a link to prisma/.
const OUT = path.join(ROOT, 'test-artifacts', 'search', 'dist');
const LOCK = `${OUT}.lock`;

/** Compiles src/ into test-artifacts/build-search (once; other workers wait for it). */
export async function buildOnce(): Promise<string> {
  const stamp = path.join(OUT, '.built-by');
  const runId = process.env.PROPGRAPH_TEST_RUN_ID ?? String(process.ppid);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === runId) return OUT;
  mkdirSync(path.dirname(OUT), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
      if (existsSync(stamp) && readFileSync(stamp, 'utf8') === runId) return OUT;
    }
  }
  try {
    const prismaLink = path.join(path.dirname(OUT), 'prisma');
    if (!existsSync(prismaLink)) symlinkSync(path.join(ROOT, 'prisma'), prismaLink);
    execFileSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(ROOT, 'tsconfig.json'), '--outDir', OUT, '--tsBuildInfoFile', path.join(OUT, '.tsbuildinfo')], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    execFileSync('sh', ['-c', `printf %s "${runId}" > "${stamp}"`]);
    return OUT;
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

export interface BuiltProcess {
  readonly child: ChildProcess;
  readonly output: string[];
  readonly exited: Promise<number | string>;
}

export function runBuilt(script: string, env: Record<string, string>, args: string[] = []): BuiltProcess {
  const child = spawn(process.execPath, [path.join(OUT, script), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (c: Buffer) => output.push(c.toString()));
  child.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, output, exited };
}

/** Starts `main.js` and resolves with its URL once it logs that it listens. */
export async function startBuiltServer(env: Record<string, string>, timeoutMs = 90_000): Promise<BuiltProcess & { url: string }> {
  const proc = runBuilt('main.js', { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', AUTH_ENABLED: 'false', ...env });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const line of proc.output.join('').split('\n')) {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'propgraph listening' && entry.url) return { ...proc, url: entry.url };
      } catch {
        // not a log line
      }
    }
    if (proc.child.exitCode !== null || Date.now() > deadline) {
      proc.child.kill('SIGKILL');
      throw new Error(`server did not start:\n${proc.output.join('').slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
