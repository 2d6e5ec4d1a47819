/**
 * The console at catalog scale (issue #41), in headless Chromium against a server holding
 * 5,000 datasets and two properties called "Tier": a steward's day without the CLI.
 *
 * - Two properties with one display name are told apart by their qualified names on the
 *   entity page, in the facets, the bulk-edit dropdown and the history; the definition
 *   form warns of a colliding name, offers every display setting and any target type, and
 *   says a change is breaking, and what it would drop, before Save.
 * - Search results show the value of every property filtered on.
 * - The CSV round trip: export a search with context columns, import a file with 5 bad
 *   rows (all 5 reported in one pass, nothing written), then the fixed file, applied whole.
 * - A metadata test built in the form with ≤; its failing list shows the failing values,
 *   opens in search, and is fixed by a bulk edit of all its assets while the dashboard,
 *   open in another tab of the same sign-in, follows without a reload.
 *
 * Every new page is scanned with axe-core; nothing may leave this machine, hit the
 * Content-Security-Policy or throw.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { axeViolations, serious, type Violation } from '../support/accessibility.js';
import { consoleWalk, launchConsoleBrowser, signIn, type ConsoleBrowser } from '../support/browser.js';
import { ensureConsoleBuilt } from '../support/build.js';
import { graphql } from '../support/graphql.js';
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';

const ROOT_TOKEN = `pgt_console_scale_${Math.random().toString(36).slice(2)}`;
const DATASETS = 5000;
const P = (qn: string) => `urn:li:structuredProperty:${qn}`;
const platformOf = (i: number) => (i % 5 === 0 ? 'kafka' : 'hive');
const dataset = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:${platformOf(i)},shop.t${String(i).padStart(4, '0')},PROD)`;
const TIER = P('acme.governance.tier');
const STEWARD_TIER = P('steward.tier');
const RETENTION = P('acme.privacy.retentionDays');
const PII = P('acme.privacy.pii');
const TEAM = P('acme.ownership.team');
const FRESHNESS = P('acme.quality.freshnessHours');
/** Datasets kept longer than a year: the test built in the form fails them. */
const KEPT_LONG = Array.from({ length: DATASETS }, (_, i) => i).filter((i) => i % 9 === 0);
const retentionOf = (i: number) => (i % 9 === 0 ? 1825 : [30, 90, 365][i % 3]!);

const walk = consoleWalk('consoleCatalogScale', 'the catalog-scale walk');

walk('the console at catalog scale: 5,000 datasets', () => {
  let server: TestServer;
  let browser: ConsoleBrowser;
  let page: Page;
  const scanned: string[] = [];
  const violations: Violation[] = [];
  const timings: Array<[string, number]> = [];
  const admin = { authorization: `Bearer ${ROOT_TOKEN}` };
  const gql = (query: string, variables?: Record<string, unknown>) => graphql(server.url, query, variables, '/api/graphql', admin);

  async function define(id: string, displayName: string, valueType: string, allowed: Array<string | number> = [], extra: Record<string, unknown> = {}): Promise<void> {
    const res = await gql('mutation c($input: CreateStructuredPropertyInput!) { createStructuredProperty(input: $input) { urn } }', {
      input: {
        id,
        displayName,
        valueType: `urn:li:dataType:${valueType}`,
        entityTypes: ['urn:li:entityType:dataset'],
        allowedValues: allowed.map((v) => (typeof v === 'number' ? { numberValue: v } : { stringValue: v })),
        settings: { showInSearchFilters: true },
        ...extra,
      },
    });
    expect(res.errors).toBeUndefined();
  }

  const valuesOf = (i: number) => [
    { propertyUrn: TIER, values: [{ string: ['gold', 'silver', 'bronze'][i % 3] }] },
    ...(i < 2000 ? [{ propertyUrn: STEWARD_TIER, values: [{ double: 1 + (i % 3) }] }] : []),
    { propertyUrn: RETENTION, values: [{ double: retentionOf(i) }] },
    { propertyUrn: TEAM, values: [{ string: `team-${i % 7}` }] },
    { propertyUrn: FRESHNESS, values: [{ double: [1, 6, 24][i % 3] }] },
    { propertyUrn: PII, values: [{ string: i % 4 === 0 ? 'sensitive' : 'none' }] },
  ];

  async function timed<T>(step: string, run: () => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      return await run();
    } finally {
      timings.push([step, Date.now() - started]);
    }
  }

  async function scan(name: string): Promise<void> {
    const found = await axeViolations(page, name);
    scanned.push(name);
    violations.push(...found.filter(serious));
  }

  const heading = (p: Page, name: string | RegExp) => p.getByRole('heading', { level: 1, name }).waitFor();
  const propertyValues = async (urn: string, property: string) => {
    const res = await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(urn)}/structuredProperties`, { headers: admin });
    return (res.body.structuredProperties.value.properties as Array<{ propertyUrn: string; values: unknown[] }>).find((p) => p.propertyUrn === property)?.values;
  };

  beforeAll(async () => {
    await ensureConsoleBuilt();
    server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN, RATE_LIMIT_PER_MINUTE: '10000000' } });
    await define('acme.governance.tier', 'Tier', 'string', ['gold', 'silver', 'bronze']);
    await define('steward.tier', 'Tier', 'number', [1, 2, 3]);
    await define('acme.privacy.retentionDays', 'Retention (days)', 'number', [30, 90, 365, 1825]);
    await define('acme.ownership.team', 'Owning team', 'string');
    await define('acme.quality.freshnessHours', 'Freshness (hours)', 'number');
    await define('acme.privacy.pii', 'PII', 'string', ['sensitive', 'none']);
    await timed('load 5,000 datasets (REST batches of 1,000)', async () => {
      for (let start = 0; start < DATASETS; start += 1000) {
        const batch = Array.from({ length: 1000 }, (_, k) => start + k).map((i) => ({
          urn: dataset(i),
          datasetProperties: { value: { name: `shop.t${String(i).padStart(4, '0')}`, description: `Table ${i} of the shop` } },
          structuredProperties: { value: { properties: valuesOf(i) } },
        }));
        const res = await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: batch, headers: admin });
        expect(res.status).toBe(200);
      }
    });
    browser = await launchConsoleBrowser();
    page = browser.page;
    await page.goto(`${server.url}/properties`);
    await signIn(page, ROOT_TOKEN);
    await heading(page, 'Structured properties');
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    const width = Math.max(0, ...timings.map(([s]) => s.length));
    if (timings.length) console.log(`The console at catalog scale, step by step:\n${timings.map(([s, ms]) => `  ${s.padEnd(width)}  ${String(ms).padStart(7)} ms`).join('\n')}`);
  });

  test('two properties called "Tier" are told apart by qualified name: entity page, history, facets, bulk-edit dropdown', async () => {
    await page.goto(`${server.url}/entity/${enc(dataset(1))}`);
    await heading(page, 'shop.t0001');
    const values = page.locator('main');
    await values.getByText('Tier (acme.governance.tier)').first().waitFor();
    await values.getByText('Tier (steward.tier)').first().waitFor();
    // The history names them the same way.
    const history = page.locator('section.history');
    await history.getByRole('link', { name: 'Tier (steward.tier)' }).first().waitFor();
    await history.getByRole('link', { name: 'Tier (acme.governance.tier)' }).first().waitFor();

    await page.goto(`${server.url}/search`);
    await heading(page, 'Search');
    const facets = page.getByRole('complementary', { name: 'Filters' });
    await facets.getByRole('region', { name: 'Tier (acme.governance.tier)' }).waitFor();
    await facets.getByRole('region', { name: 'Tier (steward.tier)' }).waitFor();
    await page.locator('article.result input[type=checkbox]').first().check();
    // The dropdown fills once the definitions load: wait for the last of them, not for time.
    await page.locator('#bulk-property option', { hasText: 'Tier (steward.tier)' }).waitFor({ state: 'attached' });
    await page.locator('#bulk-property option', { hasText: 'Retention (days)' }).waitFor({ state: 'attached' });
    const options = await page.locator('#bulk-property option').allInnerTexts();
    expect(options).toEqual(expect.arrayContaining(['Tier (acme.governance.tier)', 'Tier (steward.tier)', 'PII', 'Retention (days)']));
    expect(options.filter((o) => o.startsWith('Tier'))).toHaveLength(2);
  }, 180_000);

  test('the definition form: a colliding display name is named, every display setting and any target type offered, a breaking change and its impact shown before Save', async () => {
    await page.goto(`${server.url}/properties/new`);
    await heading(page, 'New structured property');
    await page.getByLabel('Qualified name').fill('acme.review.tier');
    await page.getByLabel('Display name').fill('tier');
    await page.getByText('is already the display name of acme.governance.tier, steward.tier').waitFor();
    for (const label of ['Show in search filters', "Show in the asset's summary", 'Show as a badge on the asset', "Show in the columns table of a dataset's schema", 'Hidden: not shown to people browsing assets']) {
      await page.getByLabel(label, { exact: true }).waitFor();
    }
    await page.getByLabel('Value type').selectOption('urn');
    await page.getByRole('group', { name: /Values may name entities of type/ }).getByLabel('Data platform', { exact: true }).waitFor();
    await scan('property-form-new');

    await page.goto(`${server.url}/properties/${enc(RETENTION)}/edit`);
    await heading(page, 'Edit Retention (days)');
    await page.getByRole('status').filter({ hasText: 'Compatible: saving keeps every stored value.' }).waitFor();
    await page.getByRole('button', { name: 'Remove value 4' }).click();
    const verdict = page.getByRole('status').filter({ hasText: 'Breaking change:' });
    await verdict.waitFor();
    expect(await verdict.innerText()).toContain('allowed value 1825 is removed');
    // A new version hides every value written under the current one.
    expect(await verdict.innerText()).toContain(`A new version would hide and then remove ${DATASETS} values on ${DATASETS} entities (Dataset: ${DATASETS})`);
    await scan('property-form-breaking');
    const stored = await gql('query p($u: String!) { structuredProperty(urn: $u) { definition { allowedValues { description } } definitionHistory { revision } } }', { u: RETENTION });
    expect(stored.data.structuredProperty.definition.allowedValues).toHaveLength(4);
    expect(stored.data.structuredProperty.definitionHistory).toHaveLength(1);
  }, 180_000);

  test('search results show the value of every property filtered on first, never behind "and N more"', async () => {
    await page.goto(`${server.url}/search?${new URLSearchParams([['v:acme.privacy.pii', 'sensitive']])}`);
    const first = page.locator('article.result').first();
    await first.waitFor();
    const labels = await first.locator('dl.result-values dt').allInnerTexts();
    expect(labels[0]).toBe('PII');
    expect(await first.locator('dl.result-values dd').first().innerText()).toBe('sensitive');
    expect(labels).toHaveLength(4);
    expect(await first.innerText()).toMatch(/and [12] more on its page/);
    await scan('search-filtered-values');
  }, 120_000);

  test('the CSV round trip: export with context columns, 5 bad rows reported in one pass, the fixed file applied whole', async () => {
    const kafka = (k: number) => dataset(5 * k);
    const file = await timed('CSV export of the 1,000 kafka datasets', async () => {
      await page.goto(`${server.url}/csv`);
      await heading(page, 'Values in CSV');
      await page.getByLabel('Entities: keywords or a query').fill('platform:kafka');
      await page.getByLabel('Tier (acme.governance.tier)').check();
      await page.getByLabel('Owning team').check();
      await scan('csv-page');
      const downloaded = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export as CSV' }).click();
      const download = await downloaded;
      await page.getByRole('status').filter({ hasText: 'Exported 1000 entities to values.csv.' }).waitFor();
      return readFileSync((await download.path())!, 'utf8');
    });
    const lines = file.trim().split('\n');
    expect(lines[0]).toBe('urn,name,platform,environment,description,acme.governance.tier,acme.ownership.team');
    expect(lines).toHaveLength(1001);
    expect(lines).toContain(`"${kafka(1)}",shop.t0005,kafka,PROD,Table 5 of the shop,bronze,team-5`);

    // A spreadsheet's edits: three values changed, a description rewritten (context: read past), and five bad rows.
    const edited = lines.map((l) =>
      l.startsWith(`"${kafka(1)}"`) ? `"${kafka(1)}",shop.t0005,kafka,PROD,Rewritten in the sheet,gold,team-5` : l.startsWith(`"${kafka(2)}"`) ? `"${kafka(2)}",shop.t0010,kafka,PROD,,gold,` : l,
    );
    // Five bad rows: three of the file's own rows spoilt, two added.
    const spoilt = new Map([
      [kafka(3), `"${kafka(3)}",shop.t0015,kafka,PROD,,platinum,team-1`],
      [kafka(4), `"${kafka(4)}",shop.t0020,kafka,PROD,,gold`],
      [kafka(5), `"${kafka(5)}",shop.t0025,kafka,PROD,,"gold|silver",team-1`],
    ]);
    const withBad = [
      ...edited.map((l) => [...spoilt].find(([urn]) => l.startsWith(`"${urn}"`))?.[1] ?? l),
      `not-a-urn,x,kafka,PROD,,gold,team-1`,
      `"${dataset(90001)}",gone,kafka,PROD,,gold,team-1`,
    ];
    const choose = (name: string, text: string) => page.getByLabel('CSV file to import').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });
    await choose('with-bad-rows.csv', `${withBad.join('\n')}\n`);
    const summary = page.locator('.csv-preview > p[role=status]');
    await summary.waitFor();
    expect(await summary.innerText()).toBe('with-bad-rows.csv: 1001 rows, 2 entities change, 995 unchanged, 5 problems.');
    const problems = page.getByRole('table', { name: /^5 problems in the file/ });
    await problems.waitFor();
    const rows = await problems.locator('tbody tr').allInnerTexts();
    expect(rows).toHaveLength(5);
    expect(rows.join('\n')).toMatch(/platinum.*should be one of/);
    expect(rows.join('\n')).toContain("'not-a-urn' is not a valid urn");
    expect(rows.join('\n')).toContain('does not exist; values are set on existing entities only');
    expect(rows.join('\n')).toContain('has 6 cells; the header has 7');
    expect(rows.join('\n')).toMatch(/cardinality SINGLE, but 2 values were given/);
    expect(await page.getByRole('button', { name: /^Apply to/ }).count()).toBe(0);
    await scan('csv-import-problems');
    expect(await propertyValues(kafka(1), TIER)).toEqual([{ string: 'bronze' }]);

    await timed('CSV import of 1,000 rows: check, then apply', async () => {
      await choose('fixed.csv', `${edited.join('\n')}\n`);
      await page.getByRole('table', { name: '3 changes, value by value' }).waitFor();
      await scan('csv-import-preview');
      await page.getByRole('button', { name: 'Apply to 2 entities' }).click();
      await page.getByRole('status').filter({ hasText: 'fixed.csv: 2 entities updated, 998 unchanged, in one transaction.' }).waitFor();
    });
    expect(await propertyValues(kafka(1), TIER)).toEqual([{ string: 'gold' }]);
    expect(await propertyValues(kafka(2), TEAM)).toBeUndefined();
    const description = await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(kafka(1))}/datasetProperties`, { headers: admin });
    expect(description.body.datasetProperties.value.description).toBe('Table 5 of the shop');
  }, 300_000);

  test('a test built in the form with ≤: its failing values shown, opened in search, fixed by a bulk edit of them all while the dashboard follows without a reload', async () => {
    const TEST = 'urn:li:test:retention-at-most-a-year';
    await page.goto(`${server.url}/tests/new`);
    await heading(page, 'New metadata test');
    await page.getByLabel('Id (optional)').fill('retention-at-most-a-year');
    await page.getByLabel('Name', { exact: true }).fill('Kept at most a year');
    await page.getByLabel('Category').fill('Privacy');
    await page.getByLabel('Property of rule 1').selectOption({ label: 'Retention (days)' });
    await page.getByLabel('Operator of rule 1').selectOption({ label: '≤ at most' });
    await page.getByLabel('Value of rule 1').selectOption('365');
    await page.getByText('The definition the form writes (JSON)').click();
    expect(JSON.parse(await page.locator('.definition-preview pre').innerText())).toEqual({
      on: { types: ['dataset'] },
      rules: [{ property: `structuredProperties.${RETENTION}`, operator: 'less_than_or_equal_to', values: ['365.0'] }],
    });
    await scan('test-form-rules');
    await page.getByRole('button', { name: 'Create test' }).click();
    await heading(page, 'Kept at most a year');

    // The dashboard in a second tab, left alone from here on.
    const dashboard = await browser.context.newPage();
    await dashboard.goto(`${server.url}/tests`);
    // Signed in once: the browser's session covers the new tab too.
    await heading(dashboard, 'Metadata tests');
    const card = dashboard.locator('li.test-card').filter({ has: dashboard.getByRole('link', { name: 'Kept at most a year' }) });
    const failingOnCard = async () => Number(/Failing\s+(\d+)/.exec(await card.locator('dl.counts-list').innerText())?.[1] ?? NaN);
    await timed(`evaluation of the new test over ${DATASETS} datasets, seen by the dashboard`, () =>
      waitFor('the dashboard to show the failing datasets', 180_000, async () => ((await card.count()) > 0 && (await failingOnCard()) === KEPT_LONG.length ? true : undefined), 250),
    );

    await page.reload();
    const list = page.getByRole('table', { name: `20 of ${KEPT_LONG.length} failing assets` });
    await list.waitFor();
    expect(await list.locator('tbody tr').first().locator('td').first().innerText()).toMatch(/Retention \(days\)\s+1825/);
    await scan('test-failing-values');

    await page.getByRole('link', { name: `Open the ${KEPT_LONG.length} failing assets in search` }).click();
    await heading(page, 'Search');
    expect(await page.getByLabel('Keywords').inputValue()).toBe(`failingTests:${TEST}`);
    await page.getByText(`${KEPT_LONG.length} results`, { exact: false }).first().waitFor();
    await page.goBack();
    await heading(page, 'Kept at most a year');

    await page.getByRole('button', { name: `Bulk edit the ${KEPT_LONG.length} failing assets` }).click();
    await page.getByLabel('Property', { exact: true }).selectOption({ label: 'Retention (days)' });
    await page.getByLabel('Value', { exact: true }).selectOption('365');
    await page.getByRole('button', { name: 'Preview the change' }).click();
    await page.getByRole('dialog').filter({ hasText: `Retention (days): ${KEPT_LONG.length} entities change` }).waitFor();
    await scan('test-bulk-edit');
    await timed(`bulk edit of the ${KEPT_LONG.length} failing assets, applied`, async () => {
      await page.getByRole('button', { name: `Apply to ${KEPT_LONG.length} entities` }).click();
      await page.getByRole('status').filter({ hasText: `Done: ${KEPT_LONG.length} changed, 0 unchanged, 0 refused.` }).waitFor({ timeout: 300_000 });
    });
    expect(await propertyValues(dataset(9), RETENTION)).toEqual([{ double: 365 }]);

    await timed('the dashboard, never reloaded, reaches 0 failing', () =>
      waitFor('the dashboard to reach 0 failing without a reload', 180_000, async () => ((await failingOnCard()) === 0 ? true : undefined), 250),
    );
    await dashboard.close();
  }, 900_000);

  test('nothing left this machine, no page hit its Content-Security-Policy or threw, no serious or critical accessibility violation', () => {
    expect(browser.offHostRequests).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    expect(scanned.length).toBeGreaterThanOrEqual(8);
    expect(violations).toEqual([]);
  });
});
