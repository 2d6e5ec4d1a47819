/**
 * A data steward's day in the web console (issue 16), in headless Chromium (Debian's
 * `chromium`, driven by playwright-core) against a fresh server with authentication on
 * and search: sign in (a bad token first, then a read token that sees no write buttons,
 * then an admin token), create a number and a string property with allowed values, set
 * values on three datasets from their pages, search by keyword, narrow with a facet and
 * a range, read a property's chart against the data, attempt a breaking change, soft
 * delete and restore, hard delete and watch the cleanup reach 100%, evaluate tests.
 *
 * Every page is scanned with axe-core (no serious or critical violation allowed); no
 * request may leave this machine and no page may hit its Content-Security-Policy.
 * Screenshots go to test-artifacts/console/ (docs/console.md shows them).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { axeViolations, serious, type Violation } from '../support/accessibility.js';
import { consoleWalk, launchConsoleBrowser, type ConsoleBrowser } from '../support/browser.js';
import { ensureConsoleBuilt, ROOT } from '../support/build.js';
import { graphql } from '../support/graphql.js';
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'console');
const ROOT_TOKEN = `pgt_console_${Math.random().toString(36).slice(2)}`;

const dataset = (platform: string, name: string) => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`;
const ORDERS = dataset('hive', 'shop.orders');
const CUSTOMERS = dataset('hive', 'shop.customers');
const CLICKS = dataset('kafka', 'web.clicks');
const RETENTION = 'urn:li:structuredProperty:io.steward.retentionDays';
const TIER = 'urn:li:structuredProperty:io.steward.tier';

const walk = consoleWalk('consoleBrowser', 'the console walk');

walk('a data steward’s day in the web console', () => {
  let server: TestServer;
  let browser: ConsoleBrowser;
  let page: Page;
  let readToken: string;
  const scanned: string[] = [];
  const violations: Violation[] = [];
  const allImpacts = new Map<string, number>();
  const admin = { authorization: `Bearer ${ROOT_TOKEN}` };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await ensureConsoleBuilt();
    server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN, RATE_LIMIT_PER_MINUTE: '1000000' } });
    // What ingestion would have loaded: three datasets with their fields, and a metadata test.
    const fields = (names: string[]) => ({ value: { schemaName: 's', platform: 'urn:li:dataPlatform:hive', fields: names.map((fieldPath) => ({ fieldPath, nativeDataType: 'varchar' })) } });
    const seeded = await http(server.url, 'POST', '/openapi/v3/entity/dataset', {
      json: [
        { urn: ORDERS, datasetProperties: { value: { description: 'Every order placed in the shop' } }, schemaMetadata: fields(['order_id', 'amount']) },
        { urn: CUSTOMERS, datasetProperties: { value: { description: 'Customer accounts' } }, schemaMetadata: fields(['customer_id', 'email']) },
        { urn: CLICKS, datasetProperties: { value: { description: 'Click stream of the web shop' } }, schemaMetadata: fields(['session_id']) },
      ],
      headers: admin,
    });
    expect(seeded.status).toBe(200);
    const testJson = JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: `structuredProperties.${TIER}`, operator: 'exists' }] });
    const created = await graphql(server.url, 'mutation c($input: CreateTestInput!) { createTest(input: $input) }', { input: { id: 'tier-is-set', name: 'Tier is set', category: 'Governance', description: 'Every dataset has a tier', definition: { json: testJson } } }, '/api/graphql', admin);
    expect(created.errors).toBeUndefined();
    const read = await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'viewer', scope: 'read' }, headers: admin });
    readToken = read.body.accessToken;

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
    for (const v of found) {
      allImpacts.set(v.impact, (allImpacts.get(v.impact) ?? 0) + 1);
      if (serious(v)) violations.push(v);
    }
  }

  const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();
  const statusWith = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).first().waitFor();
  const goto = async (pathname: string) => page.goto(`${server.url}${pathname}`);

  async function signIn(token: string): Promise<void> {
    await page.getByLabel('Access token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** Sets a property's value on the entity page currently open. */
  async function setValue(property: string, value: string, kind: 'input' | 'select'): Promise<void> {
    await page.getByRole('button', { name: `Edit ${property}`, exact: true }).click();
    const editor = page.locator('form.value-editor');
    if (kind === 'select') await editor.getByLabel(`Value of ${property}`).selectOption(value);
    else await editor.getByLabel('Value', { exact: true }).fill(value);
    await editor.getByRole('button', { name: `Save ${property}` }).click();
    await statusWith(`${property} saved.`);
  }

  const valueCell = (qualifiedName: string): Locator => page.locator(`tr[data-property="${qualifiedName}"] td`).first();

  test('sign in: a bad token is refused with the server’s reason; a read token sees no write buttons', async () => {
    await goto('/');
    await heading('Sign in to the propgraph console');
    await scan('sign-in');
    await signIn('pgt_not_a_token');
    const refusal = page.getByRole('alert');
    await refusal.filter({ hasText: 'Invalid access token' }).waitFor();
    await shot('01-sign-in-refused');

    await signIn(readToken);
    await heading('Structured properties');
    await page.getByText('viewer').first().waitFor();
    expect(await page.getByRole('link', { name: 'New property' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the propgraph console');

    await signIn(ROOT_TOKEN);
    await heading('Structured properties');
    await page.getByRole('link', { name: 'New property' }).waitFor();
  }, 120_000);

  test('create a number property: the form checks the definition as the server does before sending', async () => {
    await page.getByRole('link', { name: 'New property' }).click();
    await heading('New structured property');
    await page.getByLabel('Qualified name').fill('io.steward retentionDays');
    await page.getByLabel('Display name').fill('Retention (days)');
    await page.getByLabel('Description').fill('How long the data is kept');
    await page.getByLabel('Value type').selectOption('number');
    await page.getByLabel('Show in search filters').check();
    await page.getByRole('button', { name: 'Create property' }).click();
    await page.getByText('Invalid qualified name: Urn ID cannot have spaces').first().waitFor();
    await shot('02-property-form-checked');
    await scan('property-form');
    await page.getByLabel('Qualified name').fill('io.steward.retentionDays');
    await page.getByRole('button', { name: 'Create property' }).click();
    await heading('Retention (days)');
    expect(page.url()).toBe(`${server.url}/properties/${enc(RETENTION)}`);
  }, 120_000);

  test('create a string property with allowed values and their descriptions', async () => {
    await goto('/properties/new');
    await heading('New structured property');
    await page.getByLabel('Qualified name').fill('io.steward.tier');
    await page.getByLabel('Display name').fill('Tier');
    await page.getByLabel('Show in search filters').check();
    const values: Array<[string, string]> = [['gold', 'Business critical'], ['silver', 'Important'], ['bronze', 'Best effort']];
    for (const [i, [value, description]] of values.entries()) {
      await page.getByRole('button', { name: 'Add an allowed value' }).click();
      await page.getByLabel(`Value ${i + 1}`, { exact: true }).fill(value);
      await page.getByLabel(`Description of value ${i + 1}`).fill(description);
    }
    await page.getByRole('button', { name: 'Create property' }).click();
    await heading('Tier');
    await page.getByRole('table', { name: 'Allowed values' }).getByText('Business critical').waitFor();

    await goto('/properties');
    await heading('Structured properties');
    await page.getByRole('link', { name: 'Tier', exact: true }).waitFor();
    await page.getByLabel('Value type').selectOption('number');
    await statusWith('1 property');
    expect(await page.getByRole('link', { name: 'Retention (days)' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Tier', exact: true }).count()).toBe(0);
    await page.getByLabel('Value type').selectOption('');
    await statusWith('2 properties');
    await shot('03-catalogue');
    await scan('catalogue');
  }, 120_000);

  test('set values on three datasets from their pages', async () => {
    const plan: Array<[string, string, string]> = [
      [ORDERS, '30', 'gold'],
      [CUSTOMERS, '90', 'gold'],
      [CLICKS, '400', 'silver'],
    ];
    for (const [urn, days, tier] of plan) {
      await goto(`/entity/${enc(urn)}`);
      await page.getByRole('heading', { level: 2, name: 'Structured properties' }).waitFor();
      await setValue('Retention (days)', days, 'input');
      await setValue('Tier', tier, 'select');
      await valueCell('io.steward.tier').getByText(tier).waitFor();
      expect(await valueCell('io.steward.retentionDays').innerText()).toContain(days);
    }
    // The last dataset's page: values with the allowed value's description, its fields, its tests.
    expect(await valueCell('io.steward.tier').innerText()).toContain('silver — Important');
    await page.getByRole('heading', { level: 2, name: 'Fields' }).waitFor();
    await page.getByRole('button', { name: 'Evaluate tests' }).click();
    await statusWith('Evaluated 1 test and stored the results.');
    await page.getByRole('link', { name: 'Tier is set' }).waitFor();
    expect(await page.locator('table.test-results').innerText()).toContain('Pass');
    await shot('04-entity-page');
    await scan('entity-page');
  }, 180_000);

  test('search by keyword, narrow with a facet and a range; the address holds the search', async () => {
    await goto('/search');
    await heading('Search');
    await page.getByLabel('Keywords').fill('orders');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await statusWith('1 result');
    await page.getByRole('link', { name: 'shop.orders' }).waitFor();

    await page.getByRole('button', { name: 'Clear search' }).click();
    await statusWith('3 results');
    const tierValues = page.getByRole('group', { name: 'Values of Tier' });
    await tierValues.getByLabel('gold').check();
    await statusWith('2 results');
    expect(await tierValues.innerText()).toContain('Business critical');
    const range = page.getByRole('form', { name: 'Range of Retention (days)' });
    await range.getByLabel('From').fill('50');
    await range.getByRole('button', { name: 'Apply range' }).click();
    await statusWith('1 result');
    await page.getByRole('link', { name: 'shop.customers' }).waitFor();
    await shot('05-search');
    await scan('search');

    const shared = page.url();
    expect(new URL(shared).searchParams.getAll('v:io.steward.tier')).toEqual(['gold']);
    expect(new URL(shared).searchParams.get('min:io.steward.retentionDays')).toBe('50');
    // Another tab shares the browser's session (issue #41: it asked for a token again): the shared search, at once.
    const other = await browser.context.newPage();
    await other.goto(shared);
    await other.getByRole('status').filter({ hasText: '1 result' }).first().waitFor();
    await other.getByRole('link', { name: 'shop.customers' }).waitFor();
    await other.close();
  }, 120_000);

  test('a property’s chart: its bars match the values the datasets hold', async () => {
    await goto(`/properties/${enc(TIER)}`);
    await heading('Tier');
    await page.locator('.holders').filter({ hasText: '3 entities hold a value' }).waitFor();
    const table = page.getByRole('table', { name: 'Values of Tier' });
    await table.waitFor();
    const rows = await table.locator('tbody tr').allInnerTexts();
    expect(rows.map((r) => r.replace(/\s+/g, ' ').trim())).toEqual(['gold — Business critical 2', 'silver — Important 1', 'bronze — Best effort 0']);
    const bars = page.locator('rect.chart-bar');
    await bars.first().waitFor();
    const drawn = await bars.evaluateAll((rects) => rects.map((r) => ({ label: r.getAttribute('data-label'), count: Number(r.getAttribute('data-count')), height: Number(r.getAttribute('height')) })));
    expect(drawn.map(({ label, count }) => [label, count])).toEqual([['gold', 2], ['silver', 1], ['bronze', 0]]);
    const gold = drawn[0]!.height;
    const silver = drawn[1]!.height;
    expect(gold).toBeGreaterThan(0);
    expect(Math.abs(gold - 2 * silver)).toBeLessThanOrEqual(1);
    expect(drawn[2]!.height).toBe(0);
    await shot('06-property-chart');
    await scan('property-page');

    await goto(`/properties/${enc(RETENTION)}`);
    await heading('Retention (days)');
    const histogram = page.getByRole('table', { name: 'Values of Retention (days)' });
    await histogram.waitFor();
    const counts = (await histogram.locator('tbody td').allInnerTexts()).map(Number);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(3);
  }, 120_000);

  test('a breaking change without a new version: the server’s message says what is wrong and what to do', async () => {
    await goto(`/properties/${enc(TIER)}/edit`);
    await heading('Edit Tier');
    await page.getByRole('button', { name: 'Remove value 2' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'The server refused the change.' });
    await refusal.waitFor();
    const text = await refusal.innerText();
    expect(text).toContain('Incompatible structured property definition change: allowed value "silver" is removed (1 entity holds values it breaks). Set a new version (yyyyMMddhhmmss) to apply a breaking change');
    expect(text).toContain('give the definition a new version');
    await refusal.getByRole('button', { name: 'Use a new version' }).waitFor();
    await shot('07-breaking-change');
    await scan('breaking-change');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await heading('Tier');
    expect(await page.getByRole('table', { name: 'Allowed values' }).innerText()).toContain('silver');
  }, 120_000);

  test('soft delete hides the values; restore shows them again', async () => {
    await page.getByRole('button', { name: 'Soft delete' }).click();
    await statusWith('Soft deleted: the property and its values are hidden until it is restored.');
    await page.getByText('The values are hidden while the property is soft deleted.').waitFor();
    await shot('08-soft-deleted');
    await scan('soft-deleted');

    await goto(`/entity/${enc(ORDERS)}`);
    await valueCell('io.steward.retentionDays').getByText('30').waitFor();
    expect(await page.locator('tr[data-property="io.steward.tier"]').count()).toBe(0);

    await goto('/properties?status=removed');
    await statusWith('1 property');
    await page.getByRole('link', { name: 'Tier', exact: true }).click();
    await heading('Tier');
    await page.getByRole('button', { name: 'Restore' }).click();
    await statusWith('Restored: the property and its values are visible again.');
    await goto(`/entity/${enc(ORDERS)}`);
    await valueCell('io.steward.tier').getByText('gold').waitFor();
  }, 120_000);

  test('hard delete: the cleanup job’s progress reaches 100%', async () => {
    await goto(`/properties/${enc(TIER)}`);
    await heading('Tier');
    await page.getByRole('button', { name: 'Delete permanently' }).click();
    await page.getByRole('button', { name: 'Yes, delete permanently' }).click();
    await heading('Property deleted');
    await statusWith('Cleanup complete: 100% (3 of 3 entities). Every value is removed.');
    expect(await page.getByLabel('Removing values').getAttribute('value')).toBe('100');
    await shot('09-hard-delete-cleanup');
    await scan('hard-delete');
    await goto(`/entity/${enc(CUSTOMERS)}`);
    await valueCell('io.steward.retentionDays').getByText('90').waitFor();
    expect(await page.locator('tr[data-property="io.steward.tier"]').count()).toBe(0);
  }, 120_000);

  test('tests: the list, a definition, and evaluating it against an entity', async () => {
    await page.getByRole('link', { name: 'Tests', exact: true }).click();
    await heading('Metadata tests');
    await page.getByRole('link', { name: 'Tier is set' }).click();
    await heading('Tier is set');
    expect(await page.getByLabel('Test definition (JSON)').innerText()).toContain('"operator": "exists"');
    await page.getByLabel('Entity URN').fill(CUSTOMERS);
    await page.getByRole('button', { name: 'Evaluate', exact: true }).click();
    // The tier was hard deleted: the dataset no longer has one.
    await page.locator('table.test-results').getByText('Fail').waitFor();
    await shot('10-test');
    await scan('test-page');
  }, 120_000);

  test('nothing left this machine, no page hit its Content-Security-Policy, no serious or critical accessibility violation', () => {
    expect(browser.offHostRequests).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    expect(scanned.length).toBeGreaterThanOrEqual(10);
    console.log(`axe-core scanned ${scanned.length} pages (${scanned.join(', ')}); violations by impact: ${JSON.stringify(Object.fromEntries(allImpacts))}`);
    expect(violations).toEqual([]);
  });
});
