/**
 * `propgraph login` (issue #30), the CLI as a subprocess against a server signing people
 * in through a real OpenID provider (oidc-provider, started by the suite): the CLI
 * prints where to go and the code; the test approves it on the provider's pages over
 * HTTP, as the person would on their phone; the CLI stores the session token in its
 * config file (mode 0600) and what it writes then names the person. The person's own
 * tokens, their scope from their groups, and a declined sign-in, also from the CLI.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../src/embedded/freePort.js';
import { approveDevice, oidcEnv, PEOPLE, propgraphClient, startOpenIdProvider, type ProviderPerson, type RunningProvider } from '../support/openIdProvider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { withClient } from '../support/storedValues.js';
import { waitFor } from '../support/waitFor.js';
import { cliMain, ensureCliBuilt, runCli, tempDir, writeFile, type CliResult } from './cliRunner.js';
import { expectEvery } from '../support/nonEmpty.js';

const ROOT_TOKEN = `pgt_cli_login_${Math.random().toString(36).slice(2)}`;
let provider: RunningProvider;
let server: TestServer;
const homes: string[] = [];

beforeAll(async () => {
  await ensureCliBuilt();
  const port = await freePort();
  provider = await startOpenIdProvider({ clients: [propgraphClient(`http://127.0.0.1:${port}/auth/callback`)] });
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN, PORT: String(port), ...oidcEnv(provider.issuer) } });
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await provider?.stop();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function newHome(): string {
  const home = tempDir();
  homes.push(home);
  return home;
}

/** Runs `propgraph login`, and once it has printed where to go, lets the person act at the provider. */
async function login(home: string, person: ProviderPerson, options: { decline?: boolean; server?: string } = {}): Promise<CliResult & { verification: string }> {
  const child = spawn(process.execPath, [cliMain, 'login', '--server', options.server ?? server.url, '--name', 'test laptop'], {
    cwd: home,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const verification = await waitFor('the CLI to print where to sign in', 30_000, async () => /^\(or open (\S+)\)$/m.exec(stdout)?.[1]);
  await approveDevice(verification, person, { decline: options.decline ?? false });
  const code = await closed;
  return { code, stdout, stderr, verification };
}

const configOf = (home: string) => path.join(home, '.propgraph', 'config.json');

test('login prints the verification URI and code, then stores the session of the person who approved it (mode 0600)', async () => {
  const home = newHome();
  const result = await login(home, PEOPLE.bob);
  expect(result.code).toBe(0);
  const lines = result.stdout.split('\n');
  expect(lines[0]).toMatch(new RegExp(`^To sign in, open ${provider.issuer}/device and enter the code [A-Z]{4}-[A-Z]{4}$`));
  expect(result.verification).toMatch(new RegExp(`^${provider.issuer}/device\\?user_code=[A-Z]{4}-[A-Z]{4}$`));
  expect(result.stdout).toMatch(new RegExp(`Signed in as urn:li:corpuser:bob@example.com \\(write scope, until \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)\\. Wrote ${configOf(home).replaceAll('.', '\\.')}\\.`));
  expect(statSync(configOf(home)).mode & 0o777).toBe(0o600);
  const config = JSON.parse(readFileSync(configOf(home), 'utf8')) as { server: string; token: string };
  expect(config.server).toBe(server.url);
  expect(config.token).toMatch(/^pgt_/);

  // Everything the CLI does now acts as Bob.
  const file = writeFile(home, 'props.yaml', '- id: io.login.owner\n  type: string\n  entity_types: [dataset]\n');
  const upsert = await runCli(['properties', 'upsert', '-f', file], { home });
  expect(upsert.code).toBe(0);
  const rows = await withClient(server.databaseUrl, (c) =>
    c.query<{ created_by: string }>(`SELECT created_by FROM aspect WHERE urn = 'urn:li:structuredProperty:io.login.owner' AND aspect = 'propertyDefinition' AND version = 0`),
  );
  expect(rows.rows).toEqual([{ created_by: 'urn:li:corpuser:bob@example.com' }]);
}, 120_000);

test('a signed-in person issues personal tokens up to their scope, and lists only their own', async () => {
  const home = newHome();
  expect((await login(home, PEOPLE.bob)).code).toBe(0);
  const created = await runCli(['tokens', 'create', '--name', 'bob script', '--scope', 'write'], { home });
  expect(created.code).toBe(0);
  expect(created.stderr).toMatch(/^Created write personal token 'bob script' for urn:li:corpuser:bob@example.com \(id [0-9a-f-]{36}\)/);
  const secret = created.stdout.trim();
  const who = await runCli(['tokens', 'list'], { home, token: secret });
  expect(who.code).toBe(0);
  expect(who.stdout).toContain("bob script  (never expires, personal of urn:li:corpuser:bob@example.com)");
  const tooMuch = await runCli(['tokens', 'create', '--name', 'bob admin', '--scope', 'admin'], { home });
  expect(tooMuch.code).toBe(4);
  expect(tooMuch.stderr).toContain("A personal token cannot have more than its owner's scope: urn:li:corpuser:bob@example.com has write scope");
  const listed = await runCli(['tokens', 'list'], { home });
  expect(listed.code).toBe(0);
  const lines = listed.stdout.trim().split('\n');
  expectEvery(lines, (l) => l.includes('of urn:li:corpuser:bob@example.com)'));
  expect(lines.some((l) => /write\s+active\s+bob script/.test(l))).toBe(true);
  expect(lines.some((l) => /write\s+active\s+test laptop .*session of urn:li:corpuser:bob@example\.com/.test(l))).toBe(true);
}, 120_000);

test('a person whose groups give read signs in with read scope, and a write from the CLI is refused (exit 4)', async () => {
  const home = newHome();
  const result = await login(home, PEOPLE.carol);
  expect(result.stdout).toContain('Signed in as urn:li:corpuser:carol@example.com (read scope');
  const file = writeFile(home, 'props.yaml', '- id: io.login.refused\n  type: string\n  entity_types: [dataset]\n');
  const upsert = await runCli(['properties', 'upsert', '-f', file], { home });
  expect(upsert.code).toBe(4);
  expect(upsert.stderr).toContain('403 Forbidden');
}, 120_000);

test('a sign-in declined at the provider leaves the CLI signed out (exit 4) and writes nothing', async () => {
  const home = newHome();
  const result = await login(home, PEOPLE.alice, { decline: true });
  expect(result.code).toBe(4);
  expect(result.stderr).toContain('Not signed in: The sign-in was declined');
  expect(() => statSync(configOf(home))).toThrow();
}, 120_000);

test('a server without sign-in says so, and points to access tokens', async () => {
  const plain = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN } });
  try {
    const home = newHome();
    const result = await runCli(['login', '--server', plain.url], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`The server at ${plain.url} does not offer sign-in (it has no OIDC_ISSUER configured); use an access token: \`propgraph init --token <token>\`.`);
  } finally {
    await plain.stop();
  }
}, 120_000);
