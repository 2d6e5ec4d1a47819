#!/usr/bin/env node
// `npm run bench -- <name>`: compiles bench/<name>.ts with the sources into
// test-artifacts/bench and runs it. The compiled server finds ../../prisma/migrations
// from src/store, hence the link beside the output.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const name = process.argv[2];
if (!name || !existsSync(path.join(root, 'bench', `${name}.ts`))) {
  console.error('usage: npm run bench -- <name>   (bench/<name>.ts, e.g. search)');
  process.exit(2);
}
const out = path.join(root, 'test-artifacts', 'bench');
mkdirSync(out, { recursive: true });
if (!existsSync(path.join(out, 'prisma'))) symlinkSync(path.join(root, 'prisma'), path.join(out, 'prisma'));
execFileSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', path.join(root, 'bench', 'tsconfig.json')], { stdio: 'inherit', cwd: root });
execFileSync(process.execPath, [path.join(out, 'bench', `${name}.js`), ...process.argv.slice(3)], { stdio: 'inherit', cwd: root });
