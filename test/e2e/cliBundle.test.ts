/**
 * docs/cli.md: the `propgraph` command runs the CLI bundled into one file, which loads
 * that file and Node's own modules only (not tsc's 230 files, nor a package's), so a
 * command starts in half the time. The local commands are loaded from tsc's output
 * beside it, on demand.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CLI_BUNDLE, ensureBuilt, ROOT } from '../support/build.js';

const run = promisify(execFile);

beforeAll(ensureBuilt, 240_000);

/** Every module specifier of the file's static imports and exports, and of its dynamic imports (comment lines left out). */
function specifiers(source: string): { static: string[]; dynamic: string[] } {
  const code = source
    .split('\n')
    .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
    .join('\n');
  const staticOnes = [...code.matchAll(/^\s*(?:import|export)\s[^'";]*?\bfrom\s*["']([^"']+)["']/gm), ...code.matchAll(/^\s*import\s*["']([^"']+)["']/gm)].map((m) => m[1]!);
  const dynamic = [...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!);
  return { static: staticOnes, dynamic };
}

test("the propgraph command's CLI is one file: it imports Node's modules only, and the local commands on demand", () => {
  const found = specifiers(readFileSync(CLI_BUNDLE, 'utf8'));
  expect(found.static.length).toBeGreaterThan(3);
  expect(found.static.filter((s) => !s.startsWith('node:'))).toEqual([]);
  expect([...new Set(found.dynamic)].sort()).toEqual(['./local/restoreBackup.js', './local/upgradeData.js']);
  // The package's bin runs it.
  expect(readFileSync(path.join(ROOT, 'dist/bin.js'), 'utf8')).toContain("import('./cli/bundle.js')");
});

test('run through the package\'s bin, it answers as tsc\'s CLI does', async () => {
  const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const [bundled, compiled] = await Promise.all(
    [path.join(ROOT, 'dist/bin.js'), path.join(ROOT, 'dist/cli/main.js')].map((file) => run(process.execPath, [file, 'properties', '--help'], { env: { PATH: process.env.PATH ?? '', HOME: ROOT } })),
  );
  expect(bundled!.stdout).toContain('Usage: propgraph properties');
  expect(bundled!.stdout).toBe(compiled!.stdout);
  expect((await run(process.execPath, [path.join(ROOT, 'dist/bin.js'), '--version'])).stdout.trim()).toBe(version);
});
