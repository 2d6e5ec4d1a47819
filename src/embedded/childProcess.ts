/**
 * What the bundled engines (PostgreSQL, Meilisearch) share as child processes of the
 * server: their output turned into our log lines, a stop that asks first and forces
 * later, a stop on exit, and the pid file that lets the next start find a process a
 * SIGKILLed server left running.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { Logger } from '../platform/logger.js';
import { backoffMs, sleep, WakeableSleep } from '../platform/time.js';

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields?: Record<string, unknown>;
}

export interface ChildOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly spawnOptions?: SpawnOptions;
  readonly log: Logger;
  /** Turns one line of the child's output into a log line (null: drop it). */
  readonly parseLine: (line: string) => LogLine | null;
  /** The signal that asks the child to stop cleanly. */
  readonly stopSignal: NodeJS.Signals;
}

export interface RunningChild {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves when it has exited, for whatever reason. */
  readonly exit: Promise<void>;
  /** The last lines it printed, for error messages when it dies while starting. */
  recentOutput(): string;
  exited(): boolean;
  /** Asks it to stop, waits up to `graceMs`, then kills it. */
  stop(graceMs?: number): Promise<void>;
}

/** Spawns the child and resolves once it runs (rejects when it cannot be spawned). */
export async function startChild(options: ChildOptions): Promise<RunningChild> {
  const { log, name } = options;
  const child = spawn(options.command, [...options.args], { stdio: ['ignore', 'pipe', 'pipe'], ...options.spawnOptions });
  const recent: string[] = [];
  let partial = '';
  const onData = (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const raw of lines) {
      const line = raw.trimEnd();
      if (!line) continue;
      recent.push(line);
      if (recent.length > 20) recent.shift();
      const parsed = options.parseLine(line);
      if (parsed) log[parsed.level]({ component: name, ...parsed.fields }, parsed.message);
    }
  };
  child.stdout?.setEncoding('utf8').on('data', onData);
  child.stderr?.setEncoding('utf8').on('data', onData);
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Its output read to the end: 'close' comes after 'exit', once the pipes are drained.
  const drained = new Promise<void>((resolve) => child.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  // A server that exits without stopping it (an uncaught error) still asks it to stop.
  const onExit = () => {
    if (!exited()) child.kill(options.stopSignal);
  };
  process.once('exit', onExit);
  return {
    child,
    pid: child.pid!,
    exit,
    recentOutput: () => recent.join('\n'),
    exited,
    stop: async (graceMs = 30_000) => {
      process.off('exit', onExit);
      if (exited()) return;
      child.kill(options.stopSignal);
      const timer = setTimeout(() => {
        log.warn({ component: name, childPid: child.pid }, `${name} did not stop within ${graceMs} ms; killing it`);
        child.kill('SIGKILL');
      }, graceMs);
      await exit;
      clearTimeout(timer);
      // Its last lines ("database system is shut down") are logged before the stop is over,
      // so they come before the server's own last line; bounded, since a child of its own
      // may hold the pipes open.
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    },
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, owned by another user (PostgreSQL runs as its own user under root).
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid a pid file names (its first line), when that process is alive and its command line mentions `marker`. */
export async function runningFromPidFile(pidFile: string, marker: string): Promise<number | undefined> {
  let pid: number;
  try {
    pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]!.trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  try {
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ');
    return cmdline.includes(marker) ? pid : undefined;
  } catch {
    // No /proc (macOS): trust the pid file only as far as the process being alive.
    return process.platform === 'linux' ? undefined : pid;
  }
}

/**
 * Stops a process a previous server on this data directory left running (it was
 * killed with SIGKILL, so its children outlived it). Only called with the data
 * directory locked, so no live server owns it.
 */
export async function stopOrphan(pid: number, name: string, signal: NodeJS.Signals, log: Logger, graceMs = 30_000): Promise<void> {
  log.warn({ component: name, childPid: pid }, `stopping a ${name} left running by a previous server on this data directory`);
  process.kill(pid, signal);
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await sleep(50);
}

export interface Supervised {
  /** The process running now (a restart replaces it). */
  current(): RunningChild;
  /** Stops it for good: no restart after this. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Keeps a bundled engine running: when it exits without being asked to (a crash, the
 * OOM killer, someone's kill), it is started again, with back-off while starts fail.
 * `launch` starts it and waits until it serves. Clients see the outage as the engine
 * being unreachable (503 for the database, search paused for Meilisearch) and recover
 * by themselves once it serves again.
 */
export async function supervise(name: string, log: Logger, launch: () => Promise<RunningChild>): Promise<Supervised> {
  let running = await launch();
  let startedAt = Date.now();
  let stopping = false;
  // Crashes soon after a start count as failed starts, so a crash loop backs off too.
  let quickCrashes = 0;
  const pause = new WakeableSleep();
  const watch = async (): Promise<void> => {
    while (!stopping) {
      await running.exit;
      if (stopping) return;
      const { exitCode, signalCode } = running.child;
      quickCrashes = Date.now() - startedAt < QUICK_CRASH_MS ? quickCrashes + 1 : 0;
      log.error({ component: name, childPid: running.pid, exitCode, signal: signalCode }, `${name} exited unexpectedly; restarting it`);
      for (let failures = quickCrashes; !stopping; failures++) {
        if (failures > 0) await pause.sleep(backoffMs(failures, { baseMs: 500, maxMs: 30_000 }));
        if (stopping) return;
        try {
          running = await launch();
          startedAt = Date.now();
          if (stopping) {
            await running.stop();
            return;
          }
          log.info({ component: name, childPid: running.pid }, `${name} restarted`);
          break;
        } catch (err) {
          log.error({ component: name, err: (err as Error).message.slice(0, 1000), failures: failures + 1 }, `${name} could not be restarted; will retry`);
        }
      }
    }
  };
  const watching = watch();
  return {
    current: () => running,
    stop: async (graceMs) => {
      stopping = true;
      pause.wake();
      await running.stop(graceMs);
      await watching;
    },
  };
}

/** A crash within this long of a start counts toward the back-off. */
const QUICK_CRASH_MS = 30_000;
