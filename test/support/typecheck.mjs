// `npm run typecheck`: the TypeScript projects checked at once rather than one after
// another, each one's output printed whole once it ends; fails when any of them does.
// The service's own project (tsconfig.json) is not among them: the test project holds
// all of src/ under the same compiler options (it extends tsconfig.json), and the
// install's build compiled it with tsconfig.json already; a third check of the same
// files took 12 s of CPU in every `npm test`.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const PROJECTS = [
  ['-p', 'test/tsconfig.json'],
  ['-p', 'src/console/tsconfig.json'],
];

function check(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', (err) => resolve({ args, code: 1, output: String(err) }));
    child.on('close', (code) => resolve({ args, code: code ?? 1, output }));
  });
}

const results = await Promise.all(PROJECTS.map(check));
for (const { args, code, output } of results) {
  if (output) process.stdout.write(output);
  if (code !== 0) console.error(`tsc ${args.join(' ')} failed (exit ${code})`);
}
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
