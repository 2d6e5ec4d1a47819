/**
 * The console's search at catalog scale (issue #41), in headless Chromium against a
 * server holding 5,000 datasets: a steward's walk through a search of a few hundred.
 *
 * - "Select all 574 matching" selects the search, not the 20 rows loaded: the dry run
 *   counts them before Apply, the job's progress is followed, every dataset changes
 *   (checked over HTTP), the charts the property does not apply to are listed with the
 *   reason, and the list reloads saying nothing is selected (it said "574 selected" over
 *   20 rows before). No "Load more" is clicked.
 * - The sort: by a property's value, by name and by the last change, each order checked
 *   against the data, in the address; a property's sort over 5,000 matches is refused and
 *   told with the ways on.
 * - Saved views: the search saved with its keywords, filter and sort, opened in a second
 *   tab of the same sign-in, deleted there; a shared view made by an admin is listed for a
 *   writer, who may not share one and is told why.
 *
 * Every new or changed page is scanned with axe-core; nothing may leave this machine, hit
 * the Content-Security-Policy or throw. Screenshots go to test-artifacts/console/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { axeViolations, serious, type Violation } from '../support/accessibility.js';
import { consoleWalk, launchConsoleBrowser, signIn, type ConsoleBrowser } from '../support/browser.js';
import { ensureConsoleBuilt, ROOT } from '../support/build.js';
import { graphql } from '../support/graphql.js';
import { http } from '../support/http.js';
import { expectEvery, nonEmpty } from '../support/nonEmpty.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';

const ROOT_TOKEN = `pgt_console_search_${Math.random().toString(36).slice(2)}`;
const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'console');
const DATASETS = 5000;
const P = (qn: string) => `urn:li:structuredProperty:${qn}`;
const TIER = P('acme.governance.tier');
const TEAM = P('acme.ownership.team');
const RETENTION = P('acme.privacy.retentionDays');
const platformOf = (i: number) => (i % 5 === 0 ? 'kafka' : 'hive');
const nameOf = (i: number) => `shop.t${String(i).padStart(4, '0')}`;
const dataset = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:${platformOf(i)},${nameOf(i)},PROD)`;
/** Team 3 owns 571 of the first 4,000 datasets and three charts: the steward's search of 574. */
const teamOf = (i: number) => (i % 7 === 3 && i >= 4000 ? 'team-9' : `team-${i % 7}`);
const retentionOf = (i: number) => (i % 9 === 0 ? 1825 : [30, 90, 365][i % 3]!);
const CHARTS = [1, 2, 3].map((k) => `urn:li:chart:(looker,team3_chart_${k})`);
const TEAM3 = Array.from({ length: DATASETS }, (_, i) => i).filter((i) => teamOf(i) === 'team-3');
const MATCHING = TEAM3.length + CHARTS.length;
const TEAM3_SEARCH = new URLSearchParams([['v:acme.ownership.team', 'team-3']]);
const byUrn = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const walk = consoleWalk('consoleSearchAtScale', 'the search walk at scale');

walk('the console search at catalog scale: 5,000 datasets, a search of 574', () => {
  let server: TestServer;
  let browser: ConsoleBrowser;
  let page: Page;
  let writerToken: string;
  const scanned: string[] = [];
  const violations: Violation[] = [];
  const timings: Array<[string, number]> = [];
  const admin = { authorization: `Bearer ${ROOT_TOKEN}` };
  const gql = (query: string, variables?: Record<string, unknown>) => graphql(server.url, query, variables, '/api/graphql', admin);

  async function define(id: string, displayName: string, valueType: string, entityTypes: string[], allowed: Array<string | number> = []): Promise<void> {
    const res = await gql('mutation c($input: CreateStructuredPropertyInput!) { createStructuredProperty(input: $input) { urn } }', {
      input: {
        id,
        displayName,
        valueType: `urn:li:dataType:${valueType}`,
        entityTypes: entityTypes.map((t) => `urn:li:entityType:${t}`),
        allowedValues: allowed.map((v) => (typeof v === 'number' ? { numberValue: v } : { stringValue: v })),
        settings: { showInSearchFilters: true },
      },
    });
    expect(res.errors).toBeUndefined();
  }

  async function timed<T>(step: string, run: () => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      return await run();
    } finally {
      timings.push([step, Date.now() - started]);
    }
  }

  async function scan(on: Page, name: string): Promise<void> {
    const found = await axeViolations(on, name);
    scanned.push(name);
    violations.push(...found.filter(serious));
  }
  /** What the window shows (the results run on for pages below). */
  const shot = async (on: Page, name: string) => {
    await on.evaluate('window.scrollTo(0, 0)');
    await on.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  };
  const heading = (p: Page, name: string | RegExp) => p.getByRole('heading', { level: 1, name }).waitFor();
  const count = (p: Page) => p.locator('p.result-count');
  const shownUrns = (p: Page) => p.locator('article.result code.urn').allInnerTexts();

  /** How many entities the search finds, over HTTP: the index caught up with the load. */
  const matches = async (orFilters: unknown[]) => (await gql('query s($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { total } }', { input: { query: '*', count: 0, orFilters } })).data.scrollAcrossEntities.total as number;
  const team3 = [{ and: [{ field: 'structuredProperties.acme.ownership.team', values: ['team-3'] }] }];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await ensureConsoleBuilt();
    server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN, RATE_LIMIT_PER_MINUTE: '10000000' } });
    await define('acme.governance.tier', 'Tier', 'string', ['dataset'], ['gold', 'silver', 'bronze', 'platinum']);
    await define('acme.ownership.team', 'Owning team', 'string', ['dataset', 'chart']);
    await define('acme.privacy.retentionDays', 'Retention (days)', 'number', ['dataset'], [30, 90, 365, 1825]);
    await timed('load 5,000 datasets and 3 charts (REST batches of 1,000)', async () => {
      for (let start = 0; start < DATASETS; start += 1000) {
        const batch = Array.from({ length: 1000 }, (_, k) => start + k).map((i) => ({
          urn: dataset(i),
          datasetProperties: { value: { name: nameOf(i), description: `Table ${i} of the shop` } },
          structuredProperties: {
            value: {
              properties: [
                { propertyUrn: TIER, values: [{ string: ['gold', 'silver', 'bronze'][i % 3] }] },
                { propertyUrn: TEAM, values: [{ string: teamOf(i) }] },
                { propertyUrn: RETENTION, values: [{ double: retentionOf(i) }] },
              ],
            },
          },
        }));
        const res = await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: batch, headers: admin });
        expect(res.status).toBe(200);
      }
      const charts = await http(server.url, 'POST', '/openapi/v3/entity/chart', {
        json: CHARTS.map((urn) => ({ urn, structuredProperties: { value: { properties: [{ propertyUrn: TEAM, values: [{ string: 'team-3' }] }] } } })),
        headers: admin,
      });
      expect(charts.status).toBe(200);
      await waitFor('the index to hold the load', 300_000, async () => ((await matches([])) >= DATASETS + CHARTS.length && (await matches(team3)) === MATCHING ? true : undefined), 250);
    });
    const writer = await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'steward', scope: 'write' }, headers: admin });
    writerToken = writer.body.accessToken;
    browser = await launchConsoleBrowser();
    page = browser.page;
    await page.goto(`${server.url}/search`);
    await signIn(page, ROOT_TOKEN);
    await heading(page, 'Search');
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    const width = Math.max(0, ...timings.map(([s]) => s.length));
    if (timings.length) console.log(`The console search at catalog scale, step by step:\n${timings.map(([s, ms]) => `  ${s.padEnd(width)}  ${String(ms).padStart(7)} ms`).join('\n')}`);
  });

  test(`"Select all ${MATCHING} matching" edits the search without loading it: counted before Apply, followed, refusals listed, the list reloaded with nothing selected`, async () => {
    await page.goto(`${server.url}/search?${TEAM3_SEARCH}`);
    await count(page).filter({ hasText: `${MATCHING} results, 20 shown` }).waitFor();
    await page.getByText(`A bulk edit takes at most 10,000 entities; a larger search is refused before anything changes.`).waitFor();
    await page.getByRole('button', { name: `Select all ${MATCHING} matching` }).click();
    await page.getByText(`All ${MATCHING} matching results are selected: the bulk edit applies to the search itself, not only to the 20 loaded.`).waitFor();
    expect(await page.getByLabel(/Select all shown/).isChecked()).toBe(true);
    const panel = page.getByRole('region', { name: `Edit all ${MATCHING} results matching this search` });
    await panel.getByText('An entity someone changes after the preview is edited on its values as they are at its turn; one that no longer matches the search then is left as it is').waitFor();
    await panel.getByLabel('Property', { exact: true }).selectOption({ label: 'Tier' });
    await panel.getByLabel('Value', { exact: true }).selectOption('platinum');
    await timed(`dry run of the ${MATCHING} matching`, async () => {
      await panel.getByRole('button', { name: 'Preview the change' }).click();
      await page.getByRole('dialog').getByRole('heading', { name: `Tier: ${TEAM3.length} entities change, 0 unchanged, ${CHARTS.length} refused` }).waitFor({ timeout: 120_000 });
    });
    const dialog = page.getByRole('dialog');
    expect(await dialog.locator('#bulk-confirm-selected').innerText()).toBe(`The search selects ${MATCHING} entities now (one edit takes at most 10,000).`);
    for (const chart of CHARTS) await dialog.getByText(chart).waitFor();
    await scan(page, 'search-all-matching-preview');
    await shot(page, '20-select-all-matching');
    // Nothing beyond the first page was loaded to select them all.
    expect(await page.locator('article.result').count()).toBe(20);

    await timed(`bulk edit of all ${MATCHING} matching, applied (Apply to Done)`, async () => {
      await dialog.getByRole('button', { name: `Apply to ${TEAM3.length} entities` }).click();
      await page.getByRole('status').filter({ hasText: `Done: ${TEAM3.length} changed, 0 unchanged, ${CHARTS.length} refused.` }).waitFor({ timeout: 300_000 });
    });
    const refused = page.getByRole('table', { name: `${CHARTS.length} entities left as they were, with the reason` });
    const rows = await refused.locator('tbody tr').allInnerTexts();
    expect(rows).toHaveLength(CHARTS.length);
    for (const chart of nonEmpty(CHARTS)) expect(rows.join('\n')).toContain(chart);
    expectEvery(rows, (r) => /chart/i.test(r.split('\t')[1] ?? ''));
    // The list reloads as the search is now, and says nothing is selected.
    await count(page).filter({ hasText: `${MATCHING} results, 20 shown` }).waitFor();
    await page.getByLabel('Select all shown (0 selected)').waitFor();
    expect(await page.getByLabel('Select all shown (0 selected)').isChecked()).toBe(false);
    await page.getByRole('button', { name: `Select all ${MATCHING} matching` }).waitFor();
    await scan(page, 'search-bulk-edit-outcome');
    await shot(page, '21-bulk-edit-outcome');

    // Every one of them changed, read back over HTTP.
    const read = await gql('query s($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { total searchResults { entity { urn ... on Dataset { structuredProperties { properties { structuredProperty { urn } values { ... on StringValue { stringValue } } } } } } } } }', {
      input: { types: ['DATASET'], query: '*', count: 1000, orFilters: team3 },
    });
    const hits = read.data.scrollAcrossEntities.searchResults as Array<{ entity: { urn: string; structuredProperties: { properties: Array<{ structuredProperty: { urn: string }; values: Array<{ stringValue: string }> }> } } }>;
    expect(hits.map((h) => h.entity.urn).sort()).toEqual(TEAM3.map(dataset).sort());
    expect(hits.filter((h) => h.entity.structuredProperties.properties.find((p) => p.structuredProperty.urn === TIER)?.values[0]?.stringValue !== 'platinum')).toEqual([]);
    expect(await matches([{ and: [{ field: 'structuredProperties.acme.governance.tier', values: ['platinum'] }] }])).toBe(TEAM3.length);
  }, 900_000);

  test("sorts by a property's value, by name and by last change, as the data orders them, in the address; a value sort over 5,000 is refused with the ways on", async () => {
    await page.goto(`${server.url}/search?${TEAM3_SEARCH}`);
    await count(page).filter({ hasText: `${MATCHING} results` }).waitFor();
    await page.getByLabel('Sort by').selectOption({ label: 'Retention (days)' });
    await page.getByLabel('Order', { exact: true }).selectOption('DESCENDING');
    await page.waitForURL(/sort=acme\.privacy\.retentionDays%3Adesc/);
    // Largest first, ties by URN; the charts hold no retention and come last.
    const byRetention = [...TEAM3].sort((a, b) => retentionOf(b) - retentionOf(a) || byUrn(dataset(a), dataset(b))).map(dataset);
    await waitFor('the results sorted by retention, descending', 60_000, async () => (JSON.stringify(await shownUrns(page)) === JSON.stringify(byRetention.slice(0, 20)) ? true : undefined), 100);
    // The value sorted by is shown on every result, after those filtered on.
    expect((await page.locator('article.result').first().locator('dl.result-values dt').allInnerTexts()).slice(0, 2)).toEqual(['Owning team', 'Retention (days)']);
    await page.getByRole('button', { name: 'Load more results' }).click();
    await waitFor('the second page to follow the order', 60_000, async () => (JSON.stringify(await shownUrns(page)) === JSON.stringify(byRetention.slice(0, 40)) ? true : undefined), 100);
    await scan(page, 'search-sorted-by-value');
    await shot(page, '22-sorted-by-value');

    await page.getByLabel('Sort by').selectOption({ label: 'Name' });
    await page.waitForURL(/sort=name(&|$)/);
    // The name people read: a dataset's name; a chart without one, its URN (so the charts come last here, first descending).
    const named = [...TEAM3.map((i) => ({ urn: dataset(i), key: nameOf(i) })), ...CHARTS.map((urn) => ({ urn, key: urn }))];
    const byName = [...named].sort((a, b) => byUrn(a.key, b.key) || byUrn(a.urn, b.urn)).map((n) => n.urn);
    await waitFor('the results sorted by name', 60_000, async () => (JSON.stringify(await shownUrns(page)) === JSON.stringify(byName.slice(0, 20)) ? true : undefined), 100);
    await page.getByLabel('Order', { exact: true }).selectOption('DESCENDING');
    await page.waitForURL(/sort=name%3Adesc/);
    const byNameDown = [...named].sort((a, b) => byUrn(b.key, a.key) || byUrn(a.urn, b.urn)).map((n) => n.urn);
    expect(byNameDown.slice(0, 3)).toEqual([...CHARTS].reverse());
    await waitFor('the results sorted by name, descending', 60_000, async () => (JSON.stringify(await shownUrns(page)) === JSON.stringify(byNameDown.slice(0, 20)) ? true : undefined), 100);

    // The last change: the bulk edit above rewrote team 3's datasets after the charts were loaded.
    await page.getByLabel('Sort by').selectOption({ label: 'Last modified' });
    await page.waitForURL(/sort=lastModified%3Adesc/);
    expect(await page.getByLabel('Order', { exact: true }).inputValue()).toBe('DESCENDING');
    const edited = new Set(TEAM3.map(dataset));
    await waitFor('the results newest first: datasets the edit changed', 60_000, async () => {
      const shown = await shownUrns(page);
      return shown.length === 20 && shown.every((u) => edited.has(u)) ? true : undefined;
    }, 100);
    await page.getByLabel('Order', { exact: true }).selectOption({ label: 'Oldest first' });
    await page.waitForURL(/sort=lastModified(&|$)/);
    await waitFor('the results oldest first: the charts the edit left', 60_000, async () => (JSON.stringify((await shownUrns(page)).slice(0, 3)) === JSON.stringify(CHARTS) ? true : undefined), 100);

    // Over every dataset, a value sort is refused by the server: told in words, with the ways on.
    await page.goto(`${server.url}/search?sort=${encodeURIComponent('acme.privacy.retentionDays:desc')}`);
    const refusal = page.getByRole('alert').filter({ hasText: 'The results cannot be sorted by Retention (days).' });
    await refusal.waitFor();
    const everything = await matches([]);
    expect(await refusal.innerText()).toContain(`orders at most the first 1000 matches, and this search has ${everything}`);
    expect(await page.getByLabel('Sort by').inputValue()).toBe('property:acme.privacy.retentionDays');
    await scan(page, 'search-sort-refused');
    await shot(page, '23-sort-refused');
    await refusal.getByRole('button', { name: 'Sort by name instead' }).click();
    await page.waitForURL(/sort=name(&|$)/);
    await count(page).filter({ hasText: `${everything} results, 20 shown` }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    // A sort orders the first 1,000 matches: the list ends there and says so.
    await timed('the name sort over every dataset, loaded to its end (50 pages)', async () => {
      const more = page.getByRole('button', { name: 'Load more results' });
      while ((await page.locator('article.result').count()) < 1000) {
        const before = await page.locator('article.result').count();
        // Scrolling the button into view also loads the next page (the list's sentinel),
        // which relabels the button while it loads and drops it after the last page: a
        // click that finds no button has nothing left to do, and the count below decides.
        if (await more.isVisible()) await more.click({ timeout: 5_000 }).catch(() => undefined);
        await waitFor('the next page', 60_000, async () => ((await page.locator('article.result').count()) > before ? true : undefined), 50);
      }
    });
    await page.getByText(`A sort orders the first 1,000 of the ${everything.toLocaleString('en')} results; narrow the search with keywords or filters to see the others in order.`).waitFor();
    expect(await page.locator('article.result').count()).toBe(1000);
    expect(await page.getByRole('button', { name: 'Load more results' }).count()).toBe(0);
  }, 300_000);

  test('a search saved as a view with its keywords, filter and sort opens in a second tab of the same sign-in and is deleted there', async () => {
    const search = new URLSearchParams([['q', 'shop'], ...TEAM3_SEARCH, ['sort', 'acme.privacy.retentionDays:desc']]);
    await page.goto(`${server.url}/search?${search}`);
    await count(page).filter({ hasText: `${TEAM3.length} results` }).waitFor();
    const views = page.getByRole('region', { name: 'Saved views' });
    await views.getByRole('button', { name: 'Save this search as a view' }).click();
    await views.getByLabel('Name of the view').fill('Team 3 by retention');
    await views.getByLabel('Description (optional)').fill('What team 3 keeps longest');
    await scan(page, 'search-save-view');
    await views.getByRole('button', { name: 'Save the view' }).click();
    await views.getByRole('status').filter({ hasText: 'Saved this search as your view “Team 3 by retention”.' }).waitFor();
    const link = views.getByRole('link', { name: 'Team 3 by retention' });
    expect(await link.getAttribute('aria-current')).toBe('page');
    await shot(page, '24-saved-view');

    const stored = await gql('{ listMyViews(input: {}) { views { urn name viewType definition { entityTypes query filter { operator filters { field values } } sortCriterion { field sortOrder } } } } }');
    const [view] = stored.data.listMyViews.views;
    expect(view).toEqual({
      urn: expect.stringMatching(/^urn:li:dataHubView:/),
      name: 'Team 3 by retention',
      viewType: 'PERSONAL',
      definition: {
        entityTypes: [],
        query: 'shop',
        filter: { operator: 'AND', filters: [{ field: 'structuredProperties.acme.ownership.team', values: ['team-3'] }] },
        sortCriterion: { field: 'structuredProperties.acme.privacy.retentionDays', sortOrder: 'DESCENDING' },
      },
    });

    // The view's link, opened in a new tab: signed in already, the same search, sorted the same.
    const href = (await link.getAttribute('href'))!;
    const second = await browser.context.newPage();
    await second.goto(`${server.url}${href}`);
    await heading(second, 'Search');
    await count(second).filter({ hasText: `${TEAM3.length} results` }).waitFor();
    expect(await second.getByLabel('Keywords').inputValue()).toBe('shop');
    expect(await second.getByLabel('Sort by').inputValue()).toBe('property:acme.privacy.retentionDays');
    const byRetention = [...TEAM3].sort((a, b) => retentionOf(b) - retentionOf(a) || byUrn(dataset(a), dataset(b))).map(dataset);
    await waitFor('the view sorted as saved', 60_000, async () => (JSON.stringify(await shownUrns(second)) === JSON.stringify(byRetention.slice(0, 20)) ? true : undefined), 100);
    const secondViews = second.getByRole('region', { name: 'Saved views' });
    await secondViews.getByRole('button', { name: 'Delete the view Team 3 by retention' }).click();
    await secondViews.getByRole('group', { name: 'Delete the view Team 3 by retention?' }).getByRole('button', { name: 'Delete it' }).click();
    await secondViews.getByRole('status').filter({ hasText: 'Deleted the view “Team 3 by retention”.' }).waitFor();
    await scan(second, 'search-view-deleted');
    expect((await gql('{ listMyViews(input: {}) { total } }')).data.listMyViews.total).toBe(0);
    await second.close();
  }, 300_000);

  test('a shared view is an admin’s to make and everyone’s to open; a writer is told why they cannot share one', async () => {
    await page.goto(`${server.url}/search?${new URLSearchParams([['platform', 'urn:li:dataPlatform:kafka'], ['sort', 'name']])}`);
    await count(page).filter({ hasText: '1000 results' }).waitFor();
    const views = page.getByRole('region', { name: 'Saved views' });
    await views.getByRole('button', { name: 'Save this search as a view' }).click();
    await views.getByLabel('Name of the view').fill('Kafka tables by name');
    await views.getByLabel('Share it with everyone').check();
    await views.getByRole('button', { name: 'Save the view' }).click();
    await views.getByRole('status').filter({ hasText: 'Saved this search as a shared view “Kafka tables by name”.' }).waitFor();

    const writer = await launchConsoleBrowser();
    try {
      await writer.page.goto(`${server.url}/search`);
      await signIn(writer.page, writerToken);
      await heading(writer.page, 'Search');
      const theirs = writer.page.getByRole('region', { name: 'Saved views' });
      await theirs.getByRole('link', { name: 'Kafka tables by name' }).click();
      await count(writer.page).filter({ hasText: '1000 results' }).waitFor();
      expect(new URL(writer.page.url()).searchParams.get('sort')).toBe('name');
      expect(await theirs.getByRole('button', { name: /Delete the view Kafka tables/ }).count()).toBe(0);
      await theirs.getByRole('button', { name: 'Save this search as a view' }).click();
      const share = theirs.getByLabel('Share it with everyone');
      expect(await share.isDisabled()).toBe(true);
      await theirs.getByText('Sharing a view needs the privilege to manage global views (an administrator), which you do not have: it is saved as yours only.').waitFor();
      await scan(writer.page, 'search-views-writer');
      // The server refuses a shared view from a writer whatever a page sends: its words are what the console shows.
      const refused = await graphql(server.url, 'mutation v($input: CreateViewInput!) { createView(input: $input) { urn } }', { input: { viewType: 'GLOBAL', name: 'x', definition: { entityTypes: [], filter: { operator: 'AND', filters: [] } } } }, '/api/graphql', { authorization: `Bearer ${writerToken}` });
      expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(writer.pageErrors).toEqual([]);
    } finally {
      await writer.close();
    }
  }, 300_000);

  test('nothing left this machine, no page hit its Content-Security-Policy or threw, no serious or critical accessibility violation', () => {
    expect(browser.offHostRequests).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    expect(scanned).toEqual(['search-all-matching-preview', 'search-bulk-edit-outcome', 'search-sorted-by-value', 'search-sort-refused', 'search-save-view', 'search-view-deleted', 'search-views-writer']);
    expect(violations).toEqual([]);
  });
});
