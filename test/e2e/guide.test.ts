/**
 * The user guide's examples run as written (issue #8): every `sh` block of
 * docs/guide.md runs, in order, against a real server with authentication and search on, from a
 * project folder whose data/root-token the server generated, and prints exactly the
 * output the guide shows under it. `propgraph` is the built CLI.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../support/tempDir.js';
import { ensureBuilt, ROOT } from '../support/build.js';
import { matchesExpected, runShellExamples, shellExamples } from '../support/markdownExamples.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { nonEmpty } from '../support/nonEmpty.js';

const projectDir = tempDir('propgraph-guide-');
let server: TestServer;

beforeAll(async () => {
  await ensureBuilt();
  server = await startTestServer({
    search: true,
    // Writes return once search reflects them, however loaded the machine: the guide searches right after writing.
    env: { AUTH_ENABLED: 'true', DATA_DIR: path.join(projectDir, 'data'), INDEX_WAIT_MS: '120000' },
  });
}, 120_000);
afterAll(async () => {
  await server.stop();
  rmSync(projectDir, { recursive: true, force: true });
});

const guide = readFileSync(path.join(ROOT, 'docs/guide.md'), 'utf8');
const examples = shellExamples(guide);

test('the guide has examples, most with their output', () => {
  expect(examples.length).toBeGreaterThanOrEqual(10);
  expect(examples.filter((e) => e.expected !== undefined).length).toBeGreaterThanOrEqual(8);
});

test('every example runs and prints what the guide shows', async () => {
  const outputs = await runShellExamples(
    examples,
    {
      cwd: projectDir,
      // The examples reach the server through PORT, as they would for a user who started it with one.
      env: { ...process.env, HOME: projectDir, NO_COLOR: '1', PORT: new URL(server.url).port },
      prelude: `propgraph() { node ${JSON.stringify(path.join(ROOT, 'dist/bin.js'))} "$@"; }`,
    },
  );
  expect(outputs).toHaveLength(examples.length);
  for (const example of nonEmpty(examples)) {
    if (example.expected === undefined) continue;
    const actual = outputs[example.index]!.replaceAll(server.url, 'http://127.0.0.1:8080');
    const where = `docs/guide.md line ${example.line}`;
    // On a mismatch the failure shows what was printed beside what the guide shows.
    if (!matchesExpected(actual, example.expected)) expect({ where, printed: actual }).toEqual({ where, printed: example.expected });
  }
}, 180_000);
