/**
 * A steward's compliance work in the web console (issue #28), in headless Chromium
 * (Debian's `chromium`, driven by playwright-core) against a fresh server with
 * authentication and search: the dashboard with a card and a chart per test, the
 * drill-down to a test's failing assets and the rule each one fails, a search among
 * them, a test written in the console (its mistake named as the API names it before
 * anything is sent), edited, and run now with its progress followed.
 *
 * Every page is scanned with axe-core (no serious or critical violation allowed); no
 * request may leave this machine and no page may hit its Content-Security-Policy.
 * Screenshots go to test-artifacts/console/ (docs/console.md shows them).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { axeViolations, serious, type Violation } from '../support/accessibility.js';
import { consoleWalk, launchConsoleBrowser, type ConsoleBrowser } from '../support/browser.js';
import { ensureConsoleBuilt, ROOT } from '../support/build.js';
import { graphql } from '../support/graphql.js';
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';

const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'console');
const ROOT_TOKEN = `pgt_console_tests_${Math.random().toString(36).slice(2)}`;

const dataset = (platform: string, name: string) => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`;
const DESCRIBED = [dataset('hive', 'shop.orders'), dataset('hive', 'shop.customers')];
const UNDESCRIBED = [dataset('kafka', 'web.clicks'), dataset('kafka', 'web.views'), dataset('hive', 'shop.refunds'), dataset('hive', 'shop.carts')];
const TEST = 'urn:li:test:has-description';

const walk = consoleWalk('consoleTestsBrowser', 'the compliance walk');

walk('a steward’s compliance work in the web console', () => {
  let server: TestServer;
  let browser: ConsoleBrowser;
  let page: Page;
  const scanned: string[] = [];
  const violations: Violation[] = [];
  const admin = { authorization: `Bearer ${ROOT_TOKEN}` };

  /** The report's counts of a test, once the stored results say `failing`. */
  const countsReach = (urn: string, failing: number) =>
    waitFor(`${urn} to have ${failing} failing`, 60_000, async () => {
      const r = await graphql(server.url, 'query r($u: String) { testReport(input: {urn: $u}) { tests { failing } } }', { u: urn }, '/api/graphql', admin);
      return r.data?.testReport?.tests?.[0]?.failing === failing ? true : undefined;
    });

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await ensureConsoleBuilt();
    server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN, RATE_LIMIT_PER_MINUTE: '1000000' } });
    const seeded = await http(server.url, 'POST', '/openapi/v3/entity/dataset', {
      json: [
        ...DESCRIBED.map((urn) => ({ urn, datasetProperties: { value: { name: urn.split(',')[1], description: 'Kept by the shop team' } } })),
        ...UNDESCRIBED.map((urn) => ({ urn, datasetProperties: { value: { name: urn.split(',')[1] } } })),
      ],
      headers: admin,
    });
    expect(seeded.status).toBe(200);
    const created = await graphql(
      server.url,
      'mutation c($input: CreateTestInput!) { createTest(input: $input) }',
      { input: { id: 'has-description', name: 'Has a description', category: 'Documentation', definition: { json: JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'datasetProperties.description', operator: 'exists' }] }) } } },
      '/api/graphql',
      admin,
    );
    expect(created.errors).toBeUndefined();
    await countsReach(TEST, UNDESCRIBED.length);

    browser = await launchConsoleBrowser();
    page = browser.page;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  /** Scans the page with axe-core; a serious or critical violation fails the last test. */
  async function scan(name: string): Promise<void> {
    const found = await axeViolations(page, name);
    scanned.push(name);
    violations.push(...found.filter(serious));
  }

  const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();
  const statusWith = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).first().waitFor();

  test('the dashboard: a card per test with its counts and a chart of its trend', async () => {
    await page.goto(`${server.url}/tests`);
    await page.getByLabel('Access token').fill(ROOT_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Metadata tests');
    const card = page.locator('li.test-card').filter({ has: page.getByRole('link', { name: 'Has a description' }) });
    await card.waitFor();
    const counts = await card.locator('dl.counts-list').innerText();
    expect(counts.replace(/\s+/g, ' ')).toContain(`Passing ${DESCRIBED.length} Failing ${UNDESCRIBED.length} Not applicable 0`);
    expect(await card.innerText()).toContain('33.3% passing');
    // The chart is drawn (an area per outcome; a first day is a point of each) and its numbers are in a table for screen readers.
    await card.locator('.recharts-area').first().waitFor({ state: 'attached' });
    expect(await card.locator('.recharts-area').count()).toBe(2);
    const days = await card.getByRole('table').locator('tbody tr').count();
    expect(days).toBeGreaterThanOrEqual(1);
    expect(await card.locator('.chart-canvas').getAttribute('data-points')).toBe(String(days));
    if (days === 1) expect(await card.locator('.recharts-area-dot').count()).toBe(2);
    await shot('11-tests-dashboard');
    await scan('tests-dashboard');
  }, 120_000);

  test('drill down: the failing assets, the rule each fails with what it has, and a search among them', async () => {
    await page.getByRole('link', { name: `The ${UNDESCRIBED.length} failing assets` }).click();
    await heading('Has a description');
    const table = page.getByRole('table', { name: `${UNDESCRIBED.length} of ${UNDESCRIBED.length} failing assets` });
    await table.waitFor();
    for (const urn of UNDESCRIBED) await table.getByRole('link', { name: urn.split(',')[1] }).waitFor();
    await table.getByRole('button', { name: `Show the rule that failed for ${UNDESCRIBED[0]}` }).click();
    const reason = table.locator('.failed-rules li').first();
    await reason.waitFor();
    expect(await reason.innerText()).toMatch(/^datasetProperties\.description should exist\s+The asset has no value there\.$/);
    // The compliance chart, full size, with its table.
    await page.getByRole('table', { name: 'Compliance of Has a description per day (UTC)' }).waitFor();
    await shot('12-test-failing-assets');
    await scan('test-failing-assets');

    await page.getByLabel('Search the failing assets').fill('clicks');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const narrowed = page.getByRole('table', { name: `1 of 1 failing assets` });
    await narrowed.waitFor();
    await narrowed.getByRole('link', { name: 'web.clicks' }).waitFor();
  }, 120_000);

  test('write a test in the console: a mistake is named as the API names it, before anything is sent', async () => {
    await page.goto(`${server.url}/tests/new`);
    await heading('New metadata test');
    await page.getByLabel('Id (optional)').fill('kafka-is-described');
    await page.getByLabel('Name', { exact: true }).fill('Kafka topics are described');
    await page.getByLabel('Category').fill('Documentation');
    const definition = (operator: string) =>
      JSON.stringify({ on: { types: ['dataset'], conditions: [{ property: 'datasetKey.platform', operator: 'equals', values: ['urn:li:dataPlatform:kafka'] }] }, rules: [{ property: 'datasetProperties.description', operator }] });
    await page.getByLabel('as JSON').check();
    await page.getByLabel('Definition (JSON)').fill(definition('exist'));
    await page.getByRole('button', { name: 'Create test' }).click();
    await page.getByText('Invalid test definition: rules[0].operator: unknown operator "exist"').waitFor();
    expect(await page.getByLabel('Definition (JSON)').getAttribute('aria-invalid')).toBe('true');
    expect(await graphql(server.url, '{ test(urn: "urn:li:test:kafka-is-described") { urn } }', {}, '/api/graphql', admin).then((r) => r.data.test)).toBeNull();
    await shot('13-test-form-checked');
    await scan('test-form');

    await page.getByLabel('Definition (JSON)').fill(definition('exists'));
    await page.getByRole('button', { name: 'Create test' }).click();
    await heading('Kafka topics are described');
    expect(page.url()).toBe(`${server.url}/tests/${enc('urn:li:test:kafka-is-described')}`);
    // Two Kafka datasets, both without a description; the other four are out of its scope.
    await countsReach('urn:li:test:kafka-is-described', 2);
    await page.getByRole('button', { name: 'Run this test now' }).click();
    await statusWith(/Run complete \(\d+ of \d+ entities\)\./);
    const counts = (await page.locator('dl.counts-list').innerText()).replace(/\s+/g, ' ');
    expect(counts).toContain('Passing 0 Failing 2 Not applicable 4');
    await scan('new-test');
  }, 120_000);

  test('edit a test; run every test from the dashboard', async () => {
    await page.getByRole('link', { name: 'Edit' }).click();
    await heading('Edit Kafka topics are described');
    await page.getByLabel('Name', { exact: true }).fill('Every Kafka topic is described');
    await page.getByRole('button', { name: 'Save test' }).click();
    await heading('Every Kafka topic is described');

    await page.getByRole('link', { name: 'All tests' }).click();
    await heading('Metadata tests');
    await statusWith('2 of 2 tests');
    await page.getByRole('button', { name: 'Run every test now' }).click();
    await statusWith(/Run complete \(\d+ of \d+ entities\)\./);
    await shot('14-tests-run');
    await scan('tests-run');
  }, 120_000);

  test('nothing left this machine, no page hit its Content-Security-Policy, no serious or critical accessibility violation', () => {
    expect(browser.offHostRequests).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    expect(scanned.length).toBeGreaterThanOrEqual(5);
    expect(violations).toEqual([]);
  });
});
