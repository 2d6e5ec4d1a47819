/**
 * Runs the built server (`node dist/main.js`) as a child process, the way `npm start`
 * does, and finds its URL in its structured log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ensureBuilt, ROOT } from './build.js';

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly logs: string[];
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string>;
}

export async function startServerProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  ensureBuilt();
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', AUTH_ENABLED: 'false', MEILI_EMBEDDED: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in ${timeoutMs} ms:\n${logs.join('')}`)), timeoutMs);
    let buffer = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      logs.push(text);
      buffer += text;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'propgraph listening' && entry.url) {
            clearTimeout(timer);
            resolve(entry.url);
          }
        } catch {
          // not a log line
        }
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => logs.push(c.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${logs.join('')}`));
    });
  });
  return { child, url, logs, exited };
}
