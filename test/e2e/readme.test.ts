/**
 * The README's curl examples work as written: the API overview's shell block runs
 * unchanged (but for the address) against a real server.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../support/tempDir.js';
import { ROOT } from '../support/build.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
// The examples run from a project folder whose data/ holds the server's generated root token.
const projectDir = tempDir('propgraph-readme-');
beforeAll(async () => {
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', DATA_DIR: path.join(projectDir, 'data') } });
});
afterAll(async () => {
  await server.stop();
  rmSync(projectDir, { recursive: true, force: true });
});

/** The shell blocks of one section (up to the next heading of any level). */
function shellBlocks(markdown: string, heading: string): string[] {
  const section = markdown.split(/^#{2,} /m).find((s) => s.startsWith(heading)) ?? '';
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

test('the API overview examples run without error and show the documented results', async () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const blocks = [...shellBlocks(readme, 'API overview'), ...shellBlocks(readme, 'GraphQL')];
  expect(blocks.length).toBeGreaterThanOrEqual(2);
  const script = blocks.join('\n').replaceAll('http://127.0.0.1:8080', server.url);
  // Asynchronously: the server runs in this process and must keep serving meanwhile.
  const { stdout: output } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { encoding: 'utf8', cwd: projectDir, timeout: 60_000 });
  expect(output).toContain('"qualifiedName":"io.acryl.privacy.retentionTime"');
  expect(output).toContain('{"double":60.0}');
  expect(output).toContain('"status":{"value":{"removed":true}}');
  expect(output).toContain('"kind":"cleanup-property-values"');
  expect(output).toContain('{"data":{"dataset":{"name":"db.orders"');
  expect(output).not.toMatch(/"error"/);
});
