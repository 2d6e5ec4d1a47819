/**
 * Runs the built `propgraph` CLI as a subprocess, the way a user does: node
 * dist/cli/bundle.js (the file the package's `propgraph` command runs) with its own HOME
 * and environment.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI_BUNDLE, ensureBuilt } from '../support/build.js';
import { tempDir as runTempDir } from '../support/tempDir.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../..');
export const cliMain = CLI_BUNDLE;

/** Builds dist/ when it is older than the sources (shared with the other subprocess suites). */
export const ensureCliBuilt = ensureBuilt;

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly home: string;
  /** PROPGRAPH_SERVER; omitted: only the config file counts. */
  readonly server?: string;
  readonly token?: string;
  /** Text piped to stdin (stdin is closed after it). */
  readonly input?: string;
  readonly env?: Record<string, string>;
  readonly cwd?: string;
}

/** The environment of the child: nothing of the test process's PROPGRAPH_* or NODE_OPTIONS. */
function childEnv(options: CliOptions): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: options.home, LANG: 'C.UTF-8' };
  if (options.server !== undefined) env.PROPGRAPH_SERVER = options.server;
  if (options.token !== undefined) env.PROPGRAPH_TOKEN = options.token;
  return { ...env, ...options.env };
}

export function runCli(args: readonly string[], options: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // Asynchronous on purpose: the server under test runs in this same process.
    const child = spawn(process.execPath, [cliMain, ...args], { cwd: options.cwd ?? options.home, env: childEnv(options), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Runs the CLI with a pseudo-terminal on its streams (util-linux `script`), for what
 * only happens on a terminal: the progress bar. Undefined where `script` is missing.
 */
export function runCliOnTerminal(args: readonly string[], options: CliOptions): Promise<CliResult | undefined> {
  const quoted = [process.execPath, cliMain, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', quoted, '/dev/null'], { cwd: options.cwd ?? options.home, env: childEnv(options), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // What a person types, through the terminal: a question's answer.
    if (options.input !== undefined) child.stdin.write(options.input);
    child.stdin.end();
  });
}

/** A HOME or work folder for a CLI run, removed at the end of the test run (test/support/tempDir.ts). */
export function tempDir(prefix = 'propgraph-cli-'): string {
  return runTempDir(prefix);
}

export function writeFile(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}
