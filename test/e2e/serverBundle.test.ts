/**
 * docs/decisions.md, "The server starts from one bundle": `npm run build` leaves the
 * server's code as a bundle, dist/bundle, which main.js (`npm start`, `propgraph serve`)
 * runs while no tsc compile is newer; after one (`npm run dev`, a bare `tsc`) it runs
 * tsc's modules, so a start never runs code the sources no longer hold. The installed
 * artefact's server says it runs from the bundle (test/e2e/package.test.ts).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ensureBuilt, ROOT, SERVER_BUNDLE } from '../support/build.js';
import { nonEmpty } from '../support/nonEmpty.js';
import { SERVER_EXTERNAL } from '../../src/bundleExternals.mjs';
import { codeLoadedFrom } from '../../src/boot/server.js';

const run = promisify(execFile);
const BUNDLE = path.dirname(SERVER_BUNDLE);

beforeAll(ensureBuilt, 240_000);

/** The module specifiers of a file's imports, static and dynamic, that name a package (not a file, not Node's own); comment lines left out. */
function packagesImported(text: string): string[] {
  const source = text
    .split('\n')
    .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
    .join('\n');
  // The bundle is minified: statements share lines, and strings may be template literals.
  const q = '["\'`]';
  const spec = `${q}([^"'\`]+)${q}`;
  const found = [
    ...source.matchAll(new RegExp(`(?:^|[;}\\s])(?:import|export)\\b[^'";]*?\\bfrom\\s*${spec}`, 'gm')),
    ...source.matchAll(new RegExp(`(?:^|[;}\\s])import\\s*${spec}`, 'gm')),
    ...source.matchAll(new RegExp(`\\bimport\\(\\s*${spec}\\s*\\)`, 'g')),
    ...source.matchAll(new RegExp(`\\b__require\\(\\s*${spec}\\s*\\)`, 'g')),
  ].map((m) => m[1]!);
  // What only looks like an import, inside a string of generated code, names no package.
  return found.filter((s) => /^(@[\w.-]+\/)?[\w.-]+(\/|$)/.test(s) && !s.startsWith('.') && !s.startsWith('node:'));
}

test("the bundle holds the server's code and its packages but for those left installed on purpose", () => {
  const files = readdirSync(BUNDLE).filter((f) => f.endsWith('.js'));
  expect(files).toContain('start.js');
  const imported = new Set(files.flatMap((f) => packagesImported(readFileSync(path.join(BUNDLE, f), 'utf8'))).map((s) => s.split('/').slice(0, s.startsWith('@') ? 2 : 1).join('/')));
  // The packages left outside on purpose (src/bundleExternals.mjs says why). Node's
  // builtins may be named without `node:` by the packages inside.
  const builtins = new Set(builtinModules);
  const external = [...imported].filter((name) => !builtins.has(name)).sort();
  for (const name of nonEmpty(external, 'the packages the bundle leaves installed')) expect(name).toMatch(SERVER_EXTERNAL);
  expect(external).toEqual(expect.arrayContaining(['@apollo/utils.createhash', 'openid-client', 'pino']));
  // No bundled package reaches for what an ES module lacks (it would fail, or fall back).
  for (const f of nonEmpty(files, "the bundle's files")) expect({ f, found: readFileSync(path.join(BUNDLE, f), 'utf8').match(/\bmodule\.require\b/g) }).toEqual({ f, found: null });
});

test('codeLoadedFrom names the bundle, tsc\'s modules or the TypeScript sources by the module\'s address', () => {
  expect(codeLoadedFrom(pathToFileURL(path.join(ROOT, 'dist/bundle/server-AbC123.js')).href)).toBe('bundle');
  expect(codeLoadedFrom(pathToFileURL(path.join(ROOT, 'dist/boot/server.js')).href)).toBe('tsc');
  expect(codeLoadedFrom(import.meta.url)).toBe('sources');
});

describe("main.js's choice, on a copy of it beside stand-ins for the two starts", () => {
  let dir: string;
  const dist = () => path.join(dir, 'dist');
  const at = (file: string, seconds: number) => utimesSync(path.join(dist(), file), seconds, seconds);
  const started = async () => (await run(process.execPath, [path.join(dist(), 'main.js')], { timeout: 30_000 })).stdout.trim();

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'propgraph-launcher-'));
    mkdirSync(path.join(dist(), 'bundle'), { recursive: true });
    mkdirSync(path.join(dist(), 'boot'));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    copyFileSync(path.join(ROOT, 'dist/main.js'), path.join(dist(), 'main.js'));
    writeFileSync(path.join(dist(), 'bundle/start.js'), "console.log('bundle');\n");
    writeFileSync(path.join(dist(), 'boot/start.js'), "console.log('tsc');\n");
    writeFileSync(path.join(dist(), '.tsbuildinfo'), '{}');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('the bundle, made after tsc compiled (npm run build)', async () => {
    at('.tsbuildinfo', 1_000_000);
    at('bundle/start.js', 1_000_001);
    expect(await started()).toBe('bundle');
  });

  test("tsc's modules, once tsc has compiled after the bundle (npm run dev, a bare tsc)", async () => {
    at('bundle/start.js', 1_000_000);
    at('.tsbuildinfo', 1_000_001);
    expect(await started()).toBe('tsc');
  });

  test("the bundle, with no tsc build record (the packed artefact); tsc's modules with no bundle", async () => {
    rmSync(path.join(dist(), '.tsbuildinfo'));
    expect(await started()).toBe('bundle');
    rmSync(path.join(dist(), 'bundle'), { recursive: true });
    expect(await started()).toBe('tsc');
  });
});
