/**
 * The README's examples work as written: the first minute's commands (the real `npx
 * propgraph`, from the project folder) and the API overview's and GraphQL section's shell
 * blocks run unchanged against a real server with authentication and search on; the
 * server's port and data directory reach them through PORT and DATA_DIR, as they would
 * for a user who started the server with them.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../support/tempDir.js';
import { ensureBuilt, ROOT } from '../support/build.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { nonEmpty } from '../support/nonEmpty.js';

let server: TestServer;
// The examples run from a project folder whose data/ holds the server's generated root token.
const projectDir = tempDir('propgraph-readme-');
beforeAll(async () => {
  await ensureBuilt();
  server = await startTestServer({
    search: true,
    // Writes return once search reflects them, however loaded the machine: the examples search right after writing.
    env: { AUTH_ENABLED: 'true', DATA_DIR: path.join(projectDir, 'data'), INDEX_WAIT_MS: '120000' },
  });
}, 180_000);
afterAll(async () => {
  await server.stop();
  rmSync(projectDir, { recursive: true, force: true });
});

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The shell blocks of one section (up to the next heading of any level). */
function shellBlocks(heading: string): string[] {
  const section = readme.split(/^#{2,} /m).find((s) => s.startsWith(heading)) ?? '';
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

function runBash(script: string, options: { cwd: string; env?: Record<string, string> }): Promise<string> {
  // Without the test runner's NODE_OPTIONS: the commands run as a user's shell runs them.
  const { NODE_OPTIONS: _ignored, ...inherited } = process.env;
  const env = { ...inherited, HOME: projectDir, NO_COLOR: '1', PORT: new URL(server.url).port, ...options.env };
  // Asynchronously: the server runs in this process and must keep serving meanwhile.
  return promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { encoding: 'utf8', cwd: options.cwd, env, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }).then((r) => r.stdout);
}

test('the API overview examples run without error and show the documented results', async () => {
  const blocks = [...shellBlocks('API overview'), ...shellBlocks('GraphQL')];
  expect(blocks.length).toBeGreaterThanOrEqual(2);
  const output = await runBash(blocks.join('\n'), { cwd: projectDir });
  expect(output).toContain('"qualifiedName":"io.acryl.privacy.retentionTime"');
  expect(output).toContain('{"double":60.0}');
  // The REST search found the dataset by its value and platform.
  expect(output).toContain('{"entities":[{"urn":"urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)","datasetKey":');
  expect(output).toContain('"status":{"value":{"removed":true}}');
  expect(output).toContain('"kind":"cleanup-property-values"');
  expect(output).toContain('{"data":{"dataset":{"name":"db.orders"');
  // The GraphQL filter and its facets.
  expect(output).toContain('"scrollAcrossEntities":{"total":1,"searchResults":[{"entity":{"urn":"urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)"}}]}');
  expect(output).toContain('{"field":"platform","aggregations":[{"value":"urn:li:dataPlatform:hive","count":1}]}');
  expect(output).toContain('{"field":"origin","aggregations":[{"value":"PROD","count":1}]}');
  expect(output).not.toMatch(/"error"/);
}, 240_000);

test('the first minute: init, demo load, a search, a faceted search and the tests, as copied from the README', async () => {
  const [start, commands, ...rest] = shellBlocks('First minute');
  expect(start!.trim()).toBe('npm install && npm start');
  expect(rest).toEqual([]);
  expect(commands!.trim().split('\n')).toHaveLength(5);
  // `npx propgraph` runs the package's bin file itself: the build leaves it executable.
  expect(statSync(path.join(ROOT, 'dist/cli/main.js')).mode & 0o111).not.toBe(0);
  // `npx propgraph` from the project folder, as a user runs it; the server is this suite's.
  // With an npm cache of its own, as on a machine that never ran npx here: npx then links the
  // project into its cache, which runs the project's install scripts unless they hold back.
  const generated = path.join(ROOT, 'src/store/generated/prisma/client.ts');
  const before = [statSync(generated).mtimeMs, statSync(path.join(ROOT, 'dist/main.js')).mtimeMs];
  const output = await runBash(commands!.split('\n').map((line) => (line ? `${line}\necho '@@'` : '')).join('\n'), {
    cwd: ROOT,
    env: { DATA_DIR: path.join(projectDir, 'data'), npm_config_cache: path.join(projectDir, 'npm-cache') },
  });
  // The first `npx propgraph` ran the CLI as built, without generating and building the project again.
  expect([statSync(generated).mtimeMs, statSync(path.join(ROOT, 'dist/main.js')).mtimeMs]).toEqual(before);
  const [init, load, search, faceted, evaluate] = output.split('@@\n');
  expect(init).toMatch(/^Wrote .*config\.json \(server http:\/\/127\.0\.0\.1:\d+, with an access token of admin scope, checked\)\.\n$/);
  expect(load).toContain('Demo catalogue loaded: 13 structured properties, 300 datasets');
  expect(search).toMatch(/^\d+ results for "invoices"\.\nTYPE\s+NAME\s+PLATFORM\s+URN\n/);
  expect(search).toMatch(/\ndataset\s+marketing\.invoices\s+bigquery\s+urn:li:dataset:\(urn:li:dataPlatform:bigquery,marketing\.invoices,PROD\)\n/);
  expect(faceted).toMatch(/^\d+ results, showing the first 20 \(--count for more\)\.\n/);
  expect(faceted).toMatch(/\nTier \(structuredProperties\.acme\.governance\.tier\):\n( {2}(gold|silver|bronze)\s+\d+\n){3}/);
  const readmeSays = readme.match(/The last one ends with\n\n```text\n([\s\S]*?)```/)![1]!;
  expect(evaluate).toBe(readmeSays);
}, 300_000);

test('no example puts a token on a command line, where every user of the machine can read it with ps (issue #29)', () => {
  for (const doc of ['README.md', 'docs/cli.md', 'docs/guide.md']) {
    const text = readFileSync(path.join(ROOT, doc), 'utf8');
    const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    for (const line of nonEmpty(blocks.flatMap((b) => b.split('\n')))) {
      // A token given to a command as an argument: --token with a value other than -, or a Bearer header on curl's command line.
      expect({ doc, line, argument: /--token(?!-file)\s+(?!-(\s|$))\S/.test(line) || /curl\b.*-H\s+"[^"@]*Bearer/i.test(line) }).toEqual({ doc, line, argument: false });
    }
  }
});
