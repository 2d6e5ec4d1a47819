/**
 * The documentation pages in a real browser (issue #8): headless Chromium (Debian's
 * `chromium`, driven by playwright-core) opens Swagger UI, authorizes with a token it
 * types, runs "Try it out" on two operations against the live server and reads the
 * answers; then opens the GraphQL explorer, types the token into the headers editor,
 * loads the schema and runs a query. No request may leave this machine and no page
 * may hit its Content-Security-Policy. Screenshots go to test-artifacts/api-docs/.
 *
 * Without a Chromium binary the suite announces itself skipped, except in CI
 * (CI=true), where .ci/run installs one and a missing binary is a failure.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { CHROMIUM, chromiumAvailable, launchConsoleBrowser, type ConsoleBrowser } from '../support/browser.js';
import { ROOT } from '../support/build.js';
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'api-docs');
const TOKEN = `pgt_browser_${Math.random().toString(36).slice(2)}`;
const PROPERTY_URN = 'urn:li:structuredProperty:io.acryl.privacy.retentionTime';
const DATASET_URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';

const haveChromium = chromiumAvailable();
const inCi = process.env.CI === 'true';
if (!haveChromium && !inCi) console.warn(`apiDocsBrowser: skipped, no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

test('CI has a Chromium for the browser tests', () => {
  if (inCi) expect({ chromium: CHROMIUM, exists: haveChromium }).toEqual({ chromium: CHROMIUM, exists: true });
});

(haveChromium ? describe : describe.skip)('documentation pages in headless Chromium', () => {
  let server: TestServer;
  let browser: ConsoleBrowser;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: TOKEN } });
    // The property must exist before a value can be written through the UI.
    const defined = await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(PROPERTY_URN)}/propertyDefinition`, {
      json: {
        value: {
          qualifiedName: 'io.acryl.privacy.retentionTime',
          valueType: 'urn:li:dataType:svc.number',
          cardinality: 'MULTIPLE',
          entityTypes: ['urn:li:entityType:svc.dataset'],
          allowedValues: [{ value: { double: 30 } }, { value: { double: 60 } }],
        },
      },
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(defined.status).toBe(200);
    browser = await launchConsoleBrowser({ viewport: { width: 1400, height: 1000 } });
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: false });

  /** An operation of Swagger UI, by method and documented path. */
  const operation = (method: string, apiPath: string): Locator =>
    page.locator(`.opblock.opblock-${method}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${apiPath}"]`) });

  /** The locator's text once it contains `text` (or the last text seen, after the timeout). */
  async function textContaining(locator: Locator, text: string, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let seen = '';
    while (Date.now() < deadline) {
      seen = await locator.innerText().catch(() => '');
      if (seen.includes(text)) break;
      await page.waitForTimeout(200);
    }
    return seen;
  }

  async function execute(op: Locator): Promise<{ status: string; body: string }> {
    await op.locator('button.execute').click();
    const status = op.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor({ timeout: 20_000 });
    const body = op.locator('.live-responses-table tr.response .response-col_description pre').first();
    await body.waitFor({ timeout: 20_000 });
    return { status: (await status.innerText()).trim(), body: await body.innerText() };
  }

  test('Swagger UI: authorize with a typed token, try a write with a documented example, read it back', async () => {
    await page.goto(`${server.url}/openapi/swagger-ui/index.html`);
    await page.locator('h3.opblock-tag', { hasText: 'Entities (v3)' }).waitFor({ timeout: 30_000 });
    await expect(page.locator('.info .title').innerText()).resolves.toContain('propgraph REST API');
    await shot('01-swagger-ui');

    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input').first().pressSequentially(TOKEN);
    await dialog.locator('button.authorize').click();
    await shot('02-swagger-ui-authorized');
    await dialog.locator('button.btn-done').click();

    await page.locator('h3.opblock-tag', { hasText: 'Entities (v3)' }).click();
    const batch = operation('post', '/openapi/v3/entity/{entityName}');
    await batch.locator('.opblock-summary-control').click();
    await batch.locator('button.try-out__btn').click();
    await batch.locator('tr[data-param-name="entityName"] select').selectOption('dataset');
    await batch.locator('.examples-select-element').first().selectOption({ label: 'Create a dataset with structured properties' });
    const written = await execute(batch);
    await batch.scrollIntoViewIfNeeded();
    await shot('03-swagger-ui-try-it-out-write');
    expect(written.status).toBe('200');
    expect(written.body).toContain(DATASET_URN);
    expect(written.body).toContain(PROPERTY_URN);

    const read = operation('get', '/openapi/v3/entity/{entityName}/{urn}/{aspect}');
    await read.locator('.opblock-summary-control').click();
    await read.locator('button.try-out__btn').click();
    await read.locator('tr[data-param-name="entityName"] select').selectOption('dataset');
    await read.locator('tr[data-param-name="urn"] input').fill(DATASET_URN);
    await read.locator('tr[data-param-name="aspect"] input').fill('structuredProperties');
    const answer = await execute(read);
    await read.locator('.live-responses-table').scrollIntoViewIfNeeded();
    await shot('04-swagger-ui-try-it-out-read');
    expect(answer.status).toBe('200');
    expect(answer.body).toContain(PROPERTY_URN);
    expect(answer.body).toMatch(/"double": 60/);
  }, 120_000);

  test('GraphQL explorer: type the token into the headers editor, the schema loads, run a query', async () => {
    await page.goto(`${server.url}/api/graphiql`);
    const headers = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror');
    await headers.waitFor({ timeout: 30_000 });
    await shot('05-graphiql');

    // The headers editor holds {"Authorization": "Bearer "}: put the cursor before the closing quote and type.
    await headers.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.type(TOKEN);
    await expect(headers.innerText()).resolves.toContain(`Bearer ${TOKEN}`);

    await page.locator('.graphiql-execute-button').click();
    const result = await textContaining(page.locator('.graphiql-response'), '"numberValue": 60');
    expect(result).toContain('"numberValue": 60');
    expect(result).toContain('"name": "db.orders"');

    // The schema was fetched again with the token: the documentation explorer lists the root types.
    await page.locator('button[aria-label="Show Documentation Explorer"]').click();
    expect(await textContaining(page.locator('.graphiql-doc-explorer'), 'Query')).toContain('Query');
    await shot('06-graphiql-query');
  }, 120_000);

  test('nothing was requested from another host, and no page hit its Content-Security-Policy', () => {
    expect(browser.offHostRequests).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
