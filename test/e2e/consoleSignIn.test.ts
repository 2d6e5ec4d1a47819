/**
 * Signing in to the web console through an OpenID provider (issue #30), in headless
 * Chromium against a real provider (oidc-provider, started by the suite): "Sign in with
 * Test IdP", the provider's own login and consent pages, back to the console signed in
 * as the person, who then creates a property; the aspect's createdBy names them.
 * The sign-in lasts the browser's session in every tab (issue #41: a tab opened later
 * asked again), in an HttpOnly cookie no script reads; signing out in one tab signs out
 * the others and ends the session on the server. A person the groups mapping does not
 * let in reads why on the sign-in page. The sign-in page is scanned with axe-core.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { freePort } from '../../src/embedded/freePort.js';
import { ensureConsoleBuilt } from '../support/build.js';
import { oidcEnv, PEOPLE, propgraphClient, startOpenIdProvider, type ProviderPerson, type RunningProvider } from '../support/openIdProvider.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { withClient } from '../support/storedValues.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROOT_TOKEN = `pgt_console_signin_${Math.random().toString(36).slice(2)}`;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const haveChromium = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
if (!haveChromium && !inCi) console.warn(`consoleSignIn: skipped (no Chromium at ${CHROMIUM})`);

test('CI has Chromium for the sign-in walk', () => {
  if (inCi) expect(haveChromium).toBe(true);
});

(haveChromium ? describe : describe.skip)('signing in to the console through an OpenID provider', () => {
  let provider: RunningProvider;
  let server: TestServer;
  let context: BrowserContext;
  let page: Page;
  let second: Page;
  const profile = mkdtempSync(path.join(tmpdir(), 'propgraph-console-signin-'));
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];

  beforeAll(async () => {
    await ensureConsoleBuilt();
    const port = await freePort();
    provider = await startOpenIdProvider({ clients: [propgraphClient(`http://127.0.0.1:${port}/auth/callback`)] });
    server = await startTestServer({ search: searchAvailableForTests(), env: { AUTH_ENABLED: 'true', ROOT_TOKEN, PORT: String(port), RATE_LIMIT_PER_MINUTE: '1000000', ...oidcEnv(provider.issuer) } });
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    await server?.stop();
    await provider?.stop();
    rmSync(profile, { recursive: true, force: true });
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();

  /** From the console's sign-in page, through the provider's pages, as a person would. */
  async function signInAs(person: ProviderPerson): Promise<void> {
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await heading('Sign in to the test provider');
    expect(new URL(page.url()).origin).toBe(provider.issuer);
    await page.getByLabel('Username').fill(person.login);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Allow access');
    await page.getByRole('button', { name: 'Allow' }).click();
  }

  test('a person signs in at the provider, lands back signed in as themselves, and what they create names them', async () => {
    await page.goto(`${server.url}/properties/new`);
    await heading('Sign in to the propgraph console');
    await page.evaluate(AXE);
    const violations = (await page.evaluate(
      "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))",
    )) as string[];
    expect(violations).toEqual([]);

    await signInAs(PEOPLE.bob);
    await heading('New structured property');
    expect(page.url()).toBe(`${server.url}/properties/new`);
    await page.getByText('bob@example.com').first().waitFor();
    await page.getByText('(write access)').waitFor();

    await page.getByLabel('Qualified name').fill('io.people.steward');
    await page.getByLabel('Display name').fill('Data steward');
    await page.getByRole('button', { name: 'Create property' }).click();
    await heading('Data steward');
    const rows = await withClient(server.databaseUrl, (c) =>
      c.query<{ created_by: string }>(`SELECT created_by FROM aspect WHERE urn = 'urn:li:structuredProperty:io.people.steward' AND aspect = 'propertyDefinition' AND version = 0`),
    );
    expect(rows.rows).toEqual([{ created_by: 'urn:li:corpuser:bob@example.com' }]);
  }, 120_000);

  test('a tab opened after the sign-in is signed in already; no script can read the session', async () => {
    second = await context.newPage();
    second.on('pageerror', (error) => pageErrors.push(error.message));
    await second.goto(`${server.url}/search`);
    await second.getByRole('heading', { level: 1, name: 'Search' }).waitFor();
    await second.getByText('(write access)').waitFor();
    // Cookies are per host, not per port: the provider's, on 127.0.0.1 too, are beside it.
    const cookie = (await context.cookies(server.url)).find((c) => c.name === 'propgraph_session');
    expect(cookie).toMatchObject({ name: 'propgraph_session', httpOnly: true, sameSite: 'Strict', path: '/', expires: -1 });
    expect(await second.evaluate('document.cookie')).not.toContain('propgraph_session');
    expect(await second.evaluate('JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage })')).not.toContain(cookie!.value);
  }, 60_000);

  test('signing out in one tab signs out the other, and ends the session on the server', async () => {
    const sessions = () =>
      withClient(server.databaseUrl, (c) => c.query<{ revoked: boolean }>(`SELECT revoked_on IS NOT NULL AS revoked FROM access_token WHERE owner = 'urn:li:corpuser:bob@example.com' AND kind = 'session'`));
    expect((await sessions()).rows).toEqual([{ revoked: false }]);
    const cookie = (await context.cookies(server.url)).find((c) => c.name === 'propgraph_session');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the propgraph console');
    // The other tab is told at once, without a reload.
    await second.getByRole('heading', { level: 1, name: 'Sign in to the propgraph console' }).waitFor();
    expect((await sessions()).rows).toEqual([{ revoked: true }]);
    // And the server refuses the session wherever it is presented: a reload, or a copy of the cookie.
    await second.reload();
    await second.getByRole('heading', { level: 1, name: 'Sign in to the propgraph console' }).waitFor();
    const copied = await fetch(`${server.url}/openapi/v3/jobs`, { headers: { cookie: `propgraph_session=${cookie!.value}` } });
    expect(copied.status).toBe(401);
    await second.close();
  }, 60_000);

  test('a person no group lets in reads why on the sign-in page', async () => {
    // Another person at another browser: Bob's session at the provider outlives his propgraph sign-out.
    await context.clearCookies();
    await page.goto(`${server.url}/search`);
    await heading('Sign in to the propgraph console');
    await signInAs(PEOPLE.mallory);
    await heading('Sign in to the propgraph console');
    await page.getByRole('alert').filter({ hasText: 'urn:li:corpuser:mallory@example.com has groups contractors, and none is given a scope' }).waitFor();
    expect(new URL(page.url()).hash).toBe('');
  }, 60_000);

  test('text in a link never reaches the sign-in page; a known code shows only its own sentence (issue #46, item 12)', async () => {
    await context.clearCookies();
    const bait = 'Paste your admin token at https://evil.example/login';
    await page.goto(`${server.url}/properties#sign-in-error=${encodeURIComponent(bait)}`);
    await heading('Sign in to the propgraph console');
    expect(await page.locator('main').innerText()).not.toContain('evil.example');
    expect(new URL(page.url()).hash).toBe('');
    // A real code without the server's cookie: the code's sentence, and nothing else.
    await page.goto(`${server.url}/search#sign-in-error=refused`);
    await heading('Sign in to the propgraph console');
    await page.getByRole('alert').filter({ hasText: 'The sign-in provider refused the sign-in, or it could not be verified.' }).waitFor();
    expect(await page.getByRole('alert').innerText()).not.toContain('evil');
  }, 60_000);

  test('no page error and no Content-Security-Policy violation on the way', () => {
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
