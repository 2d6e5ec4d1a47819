/**
 * `propgraph tokens create|list|revoke` against a server with authentication on, and
 * what the issued tokens may then do from the CLI: a read token reads but cannot
 * write, a revoked or unknown token is refused with exit code 4.
 */
import { rmSync } from 'node:fs';
import { startTestServer, type TestServer } from '../support/server.js';
import { ensureCliBuilt, runCli, tempDir, writeFile } from './cliRunner.js';
import { SEED_PROPERTIES_YAML } from './seedExamples.js';

const ROOT = 'root-secret-for-cli';
let server: TestServer;
let home: string;

beforeAll(async () => {
  await ensureCliBuilt();
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT } });
  home = tempDir();
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

const cli = (args: string[], token: string) => runCli(args, { home, server: server.url, token });

test('an admin creates a read token; it can read but not write; once revoked it is refused', async () => {
  const created = await cli(['tokens', 'create', '--name', 'reporting', '--scope', 'read', '--expires-in-days', '30'], ROOT);
  expect(created.code).toBe(0);
  const secret = created.stdout.trim();
  expect(secret).toMatch(/^pgt_[A-Za-z0-9_-]{43}$/);
  expect(created.stderr).toMatch(/Created read token 'reporting' acting as urn:li:corpuser:__service_reporting \(id [0-9a-f-]{36}\)/);

  const listed = await cli(['tokens', 'list'], ROOT);
  expect(listed.code).toBe(0);
  const line = listed.stdout.split('\n').find((l) => l.includes('reporting'))!;
  expect(line).toMatch(/read\s+active\s+reporting\s+\(expires .*, machine acting as urn:li:corpuser:__service_reporting\)$/);
  expect(listed.stdout).not.toContain(secret);
  const id = line.split(/\s+/)[0]!;

  expect((await cli(['properties', 'list'], secret)).code).toBe(0);
  const file = writeFile(home, 'props.yaml', SEED_PROPERTIES_YAML);
  const write = await cli(['properties', 'upsert', '-f', file], secret);
  expect(write.code).toBe(4);
  expect(write.stderr).toMatch(/needs a token with write scope/);

  const revoked = await cli(['tokens', 'revoke', '--id', id], ROOT);
  expect(revoked.code).toBe(0);
  expect(revoked.stdout).toBe(`Revoked token ${id}.\n`);
  const after = await cli(['properties', 'list'], secret);
  expect(after.code).toBe(4);
  expect(after.stderr).toMatch(/revoked/);
});

test('a token the server does not know is refused with exit code 4; tokens need an admin token', async () => {
  const unknown = await cli(['properties', 'list'], 'pgt_not-a-real-token');
  expect(unknown.code).toBe(4);
  expect(unknown.stderr).toMatch(/Invalid access token/);
  const created = await cli(['tokens', 'create', '--name', 'writer', '--scope', 'write'], ROOT);
  const writer = created.stdout.trim();
  const denied = await cli(['tokens', 'list'], writer);
  expect(denied.code).toBe(4);
  expect(denied.stderr).toMatch(/needs a token with admin scope/);
});

test('bad arguments are usage errors', async () => {
  const res = await cli(['tokens', 'create', '--name', 'x', '--scope', 'root'], ROOT);
  expect(res.code).toBe(2);
  expect(res.stderr).toMatch(/--scope must be one of read, write, admin/);
});
