// `npm test`: the static checks (generated types up to date, the TypeScript
// projects) and Jest at the same time, rather than the checks first. The checks take
// about 20 s of one core; Jest's suites leave a core idle often enough (they wait on
// servers) to absorb them, so they run at a lower priority and their output is
// printed once Jest ends. Fails when either does. Arguments go to Jest.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function run(command, args, { env = process.env, capture = false, lowPriority = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (lowPriority && child.pid) {
      try {
        setPriority(child.pid, 10);
      } catch {
        // Not allowed here: it runs at the same priority, which is only slower.
      }
    }
    let output = '';
    if (capture) {
      child.stdout.on('data', (c) => (output += c));
      child.stderr.on('data', (c) => (output += c));
    }
    child.on('error', (err) => resolve({ code: 1, output: `${output}${err}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const checks = (async () => {
  const codegen = await run(process.execPath, ['test/support/checkCodegen.mjs'], { capture: true, lowPriority: true });
  if (codegen.code !== 0) return codegen;
  const types = await run(process.execPath, ['test/support/typecheck.mjs'], { capture: true, lowPriority: true });
  return { code: types.code, output: codegen.output + types.output };
})();

const jest = run(process.execPath, [require.resolve('jest/bin/jest'), ...process.argv.slice(2)], {
  env: { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' ') },
});

const [checked, tested] = await Promise.all([checks, jest]);
process.stdout.write(`\nStatic checks (codegen:check, typecheck): ${checked.code === 0 ? 'passed' : 'FAILED'}\n${checked.output}`);
process.exitCode = checked.code !== 0 || tested.code !== 0 ? 1 : 0;
