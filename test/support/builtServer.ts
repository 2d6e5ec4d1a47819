/**
 * The built service as a child process, for tests that kill it or run its commands:
 * started like `npm start` (node dist/main.js; without the start script's V8 flag, which
 * only shortens the event loop's pauses), its URL taken from its structured log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ensureBuilt, ROOT } from './build.js';

const OUT = path.join(ROOT, 'dist');
export { ROOT };

/** Builds dist/ when stale; returns its path. */
export async function buildOnce(): Promise<string> {
  await ensureBuilt();
  return OUT;
}

export interface BuiltProcess {
  readonly child: ChildProcess;
  readonly output: string[];
  readonly exited: Promise<number | string>;
}

/**
 * `root`: another build's package root (an earlier release's, test/support/previousRelease.ts,
 * or an installed artefact's); `script` is under its dist/, or an absolute path.
 */
export function runBuilt(script: string, env: Record<string, string>, args: string[] = [], root = ROOT): BuiltProcess {
  const child = spawn(process.execPath, [path.resolve(root, 'dist', script), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (c: Buffer) => output.push(c.toString()));
  child.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, output, exited };
}

/**
 * Starts `main.js` (or `entry`, such as an installed package's `propgraph serve`) and
 * resolves with its URL and its listening line once it logs that it listens.
 */
export async function startBuiltServer(
  env: Record<string, string>,
  timeoutMs = 90_000,
  root = ROOT,
  entry: { script: string; args: string[] } = { script: 'main.js', args: [] },
): Promise<BuiltProcess & { url: string; listening: Record<string, unknown> }> {
  const proc = runBuilt(entry.script, { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', AUTH_ENABLED: 'false', ...env }, entry.args, root);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const line of proc.output.join('').split('\n')) {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'propgraph listening' && entry.url) return { ...proc, url: entry.url, listening: entry };
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

/**
 * How many times this process finished the job: the worker's audit line for a run that
 * ended done (`audit job.run job <id> ...: done`), one per completed run.
 */
export function jobCompletions(process: Pick<BuiltProcess, 'output'>, jobId: string): number {
  return process.output
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"audit"'))
    .map((line) => (JSON.parse(line) as { audit?: { action?: string; target?: string; outcome?: string } }).audit)
    .filter((a) => a?.action === 'job.run' && a.target === `job ${jobId}` && a.outcome === 'done').length;
}
