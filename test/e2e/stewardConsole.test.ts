/**
 * The web console as a data steward uses it after issue #27, in headless Chromium against
 * one real server (authentication and search on), each behaviour with a test that fails
 * if it breaks:
 *
 * 1. A property's page shows its history: every change, with the actor and before → after.
 * 2. Search results show the values each entity holds.
 * 3. Counts link to the entities they count, and the search they open lists exactly them.
 * 4. After a save the entity's page shows the new value, at once and after a reload, and
 *    a second save shows the second value, even when the page's read after the first save
 *    answers late; a write someone made since the page's read is told before it is
 *    written over (issue #39).
 * 5. Confirmations state the impact: a hard delete's how many values on how many
 *    entities, a refused breaking change the sentence the server sends.
 * 6. Values ticked in one facet are alternatives; ticks in two facets must both hold.
 * 7. A shared link that filters on a property that is gone says so once, and the search
 *    runs without that filter.
 */
import { chromiumAvailable, launchConsoleBrowser, signIn, type ConsoleBrowser } from '../support/browser.js';
import { ensureConsoleBuilt } from '../support/build.js';
import { enc, http } from '../support/http.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import type { Locator, Page, Route } from 'playwright-core';
import { waitFor } from '../support/waitFor.js';

const ROOT_TOKEN = `pgt_gaps_${Math.random().toString(36).slice(2)}`;
const admin = { authorization: `Bearer ${ROOT_TOKEN}` };
const P = (name: string) => `urn:li:structuredProperty:${name}`;
const dataset = (platform: string, name: string) => `urn:li:dataset:(urn:li:dataPlatform:${platform},gaps.${name},PROD)`;

const D1 = dataset('hive', 'd1');
const D2 = dataset('hive', 'd2');
const D3 = dataset('hive', 'd3');
const D4 = dataset('hive', 'd4');
const K1 = dataset('kafka', 'k1');
const BARE = dataset('kafka', 'bare');
const HIST = dataset('kafka', 'hist');
const EDIT = dataset('kafka', 'edit');

type Values = Record<string, string[]>;
/** What the datasets hold when the suite starts. */
const HELD: Array<[string, Values]> = [
  [D1, { 'io.gaps.tier': ['gold'], 'io.gaps.region': ['eu'], 'io.gaps.labels': ['pii', 'finance'], 'io.gaps.level': ['low'] }],
  [D2, { 'io.gaps.tier': ['gold'], 'io.gaps.region': ['us'], 'io.gaps.labels': ['pii', 'hr'], 'io.gaps.level': ['low'] }],
  [D3, { 'io.gaps.tier': ['silver'], 'io.gaps.region': ['eu'], 'io.gaps.labels': ['ops'], 'io.gaps.level': ['low'] }],
  [D4, { 'io.gaps.tier': ['silver'], 'io.gaps.region': ['us'], 'io.gaps.level': ['high'] }],
  [K1, { 'io.gaps.tier': ['gold'], 'io.gaps.region': ['eu'] }],
  [BARE, {}],
  [HIST, {}],
  [EDIT, {}],
];

const aspectOf = (values: Values) => ({ properties: Object.entries(values).map(([name, vs]) => ({ propertyUrn: P(name), values: vs.map((string) => ({ string })) })) });

const canRun = chromiumAvailable() && searchAvailableForTests();

(canRun ? describe : describe.skip)('the steward’s console: history, values in results, counts that link, fresh saves, impact, facets, gone properties', () => {
  let server: TestServer;
  let browser: ConsoleBrowser;
  let page: Page;

  const v3 = async (method: string, path: string, json?: unknown, query: Record<string, string> = {}) => {
    const res = await http(server.url, method, `/openapi/v3${path}`, { json, query, headers: admin });
    if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status}: ${res.text}`);
    return res;
  };
  const define = async (name: string, displayName: string, options: { cardinality?: 'SINGLE' | 'MULTIPLE'; allowed?: string[]; filter?: boolean } = {}) => {
    await v3('POST', `/entity/structuredProperty/${enc(P(name))}/propertyDefinition`, {
      value: {
        qualifiedName: name,
        displayName,
        valueType: 'urn:li:dataType:svc.string',
        cardinality: options.cardinality ?? 'SINGLE',
        entityTypes: ['urn:li:entityType:svc.dataset'],
        ...(options.allowed ? { allowedValues: options.allowed.map((string) => ({ value: { string } })) } : {}),
      },
    }, { createIfNotExists: 'false' });
    if (options.filter) await v3('POST', `/entity/structuredProperty/${enc(P(name))}/structuredPropertySettings`, { value: { showInSearchFilters: true } }, { createIfNotExists: 'false' });
  };
  const storedValues = async (urn: string): Promise<Values> => {
    const res = await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(urn)}/structuredProperties`, { headers: admin });
    if (res.status === 404) return {};
    const props = (res.body.structuredProperties?.value?.properties ?? []) as Array<{ propertyUrn: string; values: Array<{ string: string }> }>;
    return Object.fromEntries(props.map((p) => [p.propertyUrn.replace('urn:li:structuredProperty:', ''), p.values.map((v) => v.string)]));
  };

  const goto = (pathname: string) => page.goto(`${server.url}${pathname}`);
  const heading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
  const resultCount = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).first().waitFor();
  /** The names of the results listed (every page of them loaded: the count says none is left). */
  const resultNames = async () => (await page.locator('ol.result-list article.result h3 a').allInnerTexts()).map((t) => t.trim()).sort();
  const resultRow = (name: string): Locator => page.locator('ol.result-list > li').filter({ has: page.getByRole('link', { name, exact: true }) });
  const valueCell = (qualifiedName: string): Locator => page.locator(`tr[data-property="${qualifiedName}"] td`).first();

  beforeAll(async () => {
    await ensureConsoleBuilt();
    server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN, RATE_LIMIT_PER_MINUTE: '1000000' } });
    await define('io.gaps.tier', 'Tier', { allowed: ['gold', 'silver', 'bronze'], filter: true });
    await define('io.gaps.region', 'Region', { allowed: ['eu', 'us'], filter: true });
    await define('io.gaps.labels', 'Labels', { cardinality: 'MULTIPLE' });
    await define('io.gaps.level', 'Level', { allowed: ['low', 'high'] });
    await define('io.gaps.owner', 'Owner');
    await define('io.gaps.contact', 'Contact');
    await v3('POST', '/entity/dataset', HELD.map(([urn, values]) => ({ urn, status: { value: { removed: false } }, ...(Object.keys(values).length ? { structuredProperties: { value: aspectOf(values) } } : {}) })));
    browser = await launchConsoleBrowser();
    page = browser.page;
    await goto('/properties');
    await signIn(page, ROOT_TOKEN);
    await heading('Structured properties');
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("1. a property's page shows each change of its values, with the actor and before → after", async () => {
    await v3('POST', `/entity/dataset/${enc(HIST)}/structuredProperties`, { value: aspectOf({ 'io.gaps.owner': ['alice'] }) }, { createIfNotExists: 'false' });
    await v3('POST', `/entity/dataset/${enc(HIST)}/structuredProperties`, { value: aspectOf({ 'io.gaps.owner': ['bob'] }) }, { createIfNotExists: 'false' });
    await goto(`/properties/${enc(P('io.gaps.owner'))}`);
    await heading('Owner');
    const timeline = page.getByRole('region', { name: 'History of values' });
    await timeline.getByText('Owner: alice → bob').waitFor();
    // The value changes; the property's own lifecycle (its creation) stands among them as an event.
    const entries = (await timeline.locator('ol.timeline > li:not(.lifecycle)').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    expect(entries).toHaveLength(2);
    expect(await timeline.locator('ol.timeline > li.lifecycle').allInnerTexts()).toEqual([expect.stringMatching(/__service_root \(machine token\)[\s\S]*Created$/)]);
    // Newest first; each names who wrote it (the root token's principal), through which interface, on which entity.
    expect(entries[0]).toMatch(new RegExp(`· urn:li:corpuser:__service_root \\(machine token\\) · via rest-v3 · ${escaped(HIST)} Owner: alice → bob$`));
    expect(entries[1]).toMatch(new RegExp(`· urn:li:corpuser:__service_root \\(machine token\\) · via rest-v3 · ${escaped(HIST)} Owner: no value → alice$`));
    expect(await timeline.getByRole('link', { name: HIST }).first().getAttribute('href')).toBe(`/entity/${enc(HIST)}`);
  }, 120_000);

  test('2. a result row shows the values its entity holds; an entity holding none shows none', async () => {
    await goto('/search?type=dataset');
    await resultCount(/^8 results$/);
    const d1 = resultRow('gaps.d1').locator('dl.result-values');
    await d1.waitFor();
    const pairs = await d1.locator('> div').evaluateAll((rows) => rows.map((r) => `${r.querySelector('dt')?.textContent}=${r.querySelector('dd')?.textContent}`));
    expect(pairs.sort()).toEqual(['Labels=pii, finance', 'Level=low', 'Region=eu', 'Tier=gold']);
    expect(await resultRow('gaps.k1').locator('dl.result-values').innerText()).toMatch(/Tier\s+gold/);
    expect(await resultRow('gaps.bare').locator('dl.result-values').count()).toBe(0);
  }, 120_000);

  test('3. counts link to the entities they count: a value’s count, a text value’s count, the holders', async () => {
    await goto(`/properties/${enc(P('io.gaps.tier'))}`);
    await heading('Tier');
    await page.getByRole('table', { name: 'Values of Tier' }).getByRole('link', { name: '3 entities with gold' }).click();
    await page.waitForURL(`${server.url}/search?${new URLSearchParams([['v:io.gaps.tier', 'gold']])}`);
    await resultCount(/^3 results$/);
    expect(await resultNames()).toEqual(['gaps.d1', 'gaps.d2', 'gaps.k1']);
    expect(await page.getByRole('group', { name: 'Values of Tier' }).getByLabel(/^gold/).isChecked()).toBe(true);

    await goto(`/properties/${enc(P('io.gaps.tier'))}`);
    await page.getByRole('link', { name: '5 entities hold a value' }).click();
    await page.waitForURL(`${server.url}/search?${new URLSearchParams([['has:io.gaps.tier', 'yes']])}`);
    await resultCount(/^5 results$/);
    expect(await resultNames()).toEqual(['gaps.d1', 'gaps.d2', 'gaps.d3', 'gaps.d4', 'gaps.k1']);

    await goto(`/properties/${enc(P('io.gaps.level'))}`);
    await heading('Level');
    await page.getByRole('table', { name: 'Values of Level' }).getByRole('link', { name: '1 entity with high' }).click();
    await resultCount(/^1 result$/);
    expect(await resultNames()).toEqual(['gaps.d4']);

    // A property without allowed values: each text's count links too.
    await goto(`/properties/${enc(P('io.gaps.labels'))}`);
    await heading('Labels');
    await page.getByRole('table', { name: 'Values of Labels' }).getByRole('link', { name: '2 entities with pii' }).click();
    await page.waitForURL(`${server.url}/search?${new URLSearchParams([['v:io.gaps.labels', 'pii']])}`);
    await resultCount(/^2 results$/);
    expect(await resultNames()).toEqual(['gaps.d1', 'gaps.d2']);
  }, 120_000);

  test('4. after a save the page shows the new value at once and after a reload; a second save shows the second value', async () => {
    await goto(`/entity/${enc(EDIT)}`);
    await page.getByRole('heading', { level: 2, name: 'Structured properties' }).waitFor();
    await valueCell('io.gaps.contact').getByText('No value').waitFor();

    const save = async (value: string, previous: string | null) => {
      await page.getByRole('button', { name: 'Edit Contact', exact: true }).click();
      const input = page.locator('form.value-editor').getByLabel('Value', { exact: true });
      // The editor starts from what the entity holds now, not from an older read.
      expect(await input.inputValue()).toBe(previous ?? '');
      await input.fill(value);
      await page.getByRole('button', { name: 'Save Contact' }).click();
      await page.getByRole('status').filter({ hasText: 'Contact saved.' }).waitFor();
      await valueCell('io.gaps.contact').getByText(value, { exact: true }).waitFor();
      // Once every read the save set off has answered, the value is still the one saved.
      await page.getByRole('region', { name: 'History of values' }).getByText(`Contact: ${previous ?? 'no value'} → ${value}`).waitFor();
      await page.waitForLoadState('networkidle');
      expect(await valueCell('io.gaps.contact').innerText()).toBe(value);
    };

    await save('carol', null);
    await page.reload();
    await valueCell('io.gaps.contact').getByText('carol', { exact: true }).waitFor();
    await save('dave', 'carol');
    expect(await valueCell('io.gaps.contact').innerText()).not.toContain('carol');
    await page.reload();
    await valueCell('io.gaps.contact').getByText('dave', { exact: true }).waitFor();
    expect(await valueCell('io.gaps.contact').innerText()).toBe('dave');
    expect((await storedValues(EDIT))['io.gaps.contact']).toEqual(['dave']);
  }, 120_000);

  test('4b. a read of the page that answers late, after a second save, does not bring back the value that save replaced; a write made since is told first', async () => {
    await goto(`/entity/${enc(EDIT)}`);
    await valueCell('io.gaps.contact').getByText('dave', { exact: true }).waitFor();
    // The network held in the test's hand: the page's reads of the entity, and (once a read is held) its saves.
    const reads: Route[] = [];
    const saves: Route[] = [];
    let holding = true;
    await page.route('**/api/graphql', async (route) => {
      const body = route.request().postData() ?? '';
      if (holding && body.includes('query EntityPage')) reads.push(route);
      else if (holding && body.includes('mutation SetValues') && reads.length > 0) saves.push(route);
      else await route.continue();
    });
    const editContact = async (value: string) => {
      await page.getByRole('button', { name: 'Edit Contact', exact: true }).click();
      await page.locator('form.value-editor').getByLabel('Value', { exact: true }).fill(value);
      await page.getByRole('button', { name: 'Save Contact' }).click();
    };
    try {
      await editContact('erin');
      await page.getByRole('status').filter({ hasText: 'Contact saved.' }).waitFor();
      await valueCell('io.gaps.contact').getByText('erin', { exact: true }).waitFor();
      // The read the save set off is made now (it sees erin, and an owner someone else just set), and answers late.
      await waitFor('the read after the first save', 30_000, async () => reads[0]);
      await v3('PATCH', '/entity/dataset', [{ urn: EDIT, structuredProperties: { value: { patch: [{ op: 'add', path: `/properties/${P('io.gaps.owner')}`, value: { propertyUrn: P('io.gaps.owner'), values: [{ string: 'zed' }] } }] } } }]);
      const late = await reads[0]!.fetch();
      await editContact('frank');
      await waitFor('the second save', 30_000, async () => saves[0]);
      await reads[0]!.fulfill({ response: late });
      await valueCell('io.gaps.owner').getByText('zed', { exact: true }).waitFor();
      await saves[0]!.continue();
      // Someone wrote since the version the page had read when Save was pressed (issue #39): the save is told, not written over it.
      const told = page.locator('section.stale');
      await told.getByRole('heading', { name: 'Not saved: someone changed this entity after you opened it' }).waitFor();
      expect(await told.getByRole('alert').innerText()).toMatch(/root \(machine token\) at .* via rest-v3/);
      expect(await told.locator('tr[data-property="io.gaps.owner"] td').allInnerTexts()).toEqual(['no value', 'zed', 'no value (as you opened it)', expect.stringContaining('Theirs')]);
      expect((await storedValues(EDIT))['io.gaps.contact']).toEqual(['erin']);
      holding = false;
      await told.getByRole('button', { name: 'Keep mine' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved over the change made since: Contact.' }).waitFor();
      // The second save's answer is shown at once, the other's write kept.
      expect(await valueCell('io.gaps.contact').innerText()).toBe('frank');
      expect(await valueCell('io.gaps.owner').innerText()).toBe('zed');
      await page.getByRole('region', { name: 'History of values' }).getByText('Contact: erin → frank').waitFor();
      await page.waitForLoadState('networkidle');
      expect(await valueCell('io.gaps.contact').innerText()).toBe('frank');
    } finally {
      holding = false;
      await page.unroute('**/api/graphql');
    }
    await page.reload();
    await valueCell('io.gaps.contact').getByText('frank', { exact: true }).waitFor();
  }, 120_000);

  test("5a. a hard delete's confirmation says how many values on how many entities it removes", async () => {
    await goto(`/properties/${enc(P('io.gaps.labels'))}`);
    await heading('Labels');
    await page.getByRole('button', { name: 'Delete permanently' }).click();
    const confirm = page.getByRole('region', { name: 'Delete Labels permanently?' });
    await confirm.getByRole('status').filter({ hasText: 'This removes' }).waitFor();
    expect(await confirm.getByRole('status').innerText()).toBe('This removes 5 values on 3 entities (Dataset: 3).');
    await confirm.getByRole('button', { name: 'Yes, delete permanently' }).click();
    await heading('Property deleted');
    await page.getByRole('status').filter({ hasText: 'Cleanup complete: 100% (3 of 3 entities).' }).waitFor();
    expect(await storedValues(D1)).toEqual({ 'io.gaps.tier': ['gold'], 'io.gaps.region': ['eu'], 'io.gaps.level': ['low'] });
  }, 120_000);

  test('5b. a refused breaking change shows the impact the server states: how many values on how many entities a new version drops', async () => {
    await goto(`/properties/${enc(P('io.gaps.level'))}/edit`);
    await heading('Edit Level');
    await page.getByRole('button', { name: 'Remove value 2' }).click();
    await page.getByRole('button', { name: 'Save changes' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'The server refused the change.' });
    await refusal.waitFor();
    const text = (await refusal.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('allowed value "high" is removed (1 entity holds values it breaks). Set a new version (yyyyMMddhhmmss) to apply a breaking change');
    expect(text).toContain('A new version hides at once, and then removes, the 4 values on 4 entities (dataset: 4) the property holds now.');
    expect((await storedValues(D4))['io.gaps.level']).toEqual(['high']);
    await page.getByRole('link', { name: 'Cancel' }).click();
    await heading('Level');
    expect(await page.getByRole('table', { name: 'Allowed values' }).innerText()).toContain('high');
  }, 120_000);

  test('6. facets: ticks in one facet are alternatives, ticks in two facets must both hold', async () => {
    await goto('/search?type=dataset');
    await resultCount(/^8 results$/);
    const tiers = page.getByRole('group', { name: 'Values of Tier' });
    const regions = page.getByRole('group', { name: 'Values of Region' });
    await tiers.getByLabel(/^gold \(3\)$/).check();
    await resultCount(/^3 results$/);
    // The other facet counts within the ticked tier.
    await regions.getByLabel(/^eu \(2\)$/).waitFor();
    await regions.getByLabel(/^us \(1\)$/).check();
    await resultCount(/^1 result$/);
    expect(await resultNames()).toEqual(['gaps.d2']);
    await regions.getByLabel(/^us /).uncheck();
    await regions.getByLabel(/^eu \(2\)$/).check();
    await resultCount(/^2 results$/);
    expect(await resultNames()).toEqual(['gaps.d1', 'gaps.k1']);
    await tiers.getByLabel(/^silver \(\d+\)$/).check();
    await resultCount(/^3 results$/);
    expect(await resultNames()).toEqual(['gaps.d1', 'gaps.d3', 'gaps.k1']);
    await regions.getByLabel(/^us \(2\)$/).waitFor();
    const url = new URL(page.url());
    expect(url.searchParams.getAll('v:io.gaps.tier').sort()).toEqual(['gold', 'silver']);
    expect(url.searchParams.getAll('v:io.gaps.region')).toEqual(['eu']);
  }, 120_000);

  test('7. a shared link that filters on a property that is gone says so once, and the search runs without that filter', async () => {
    await goto(`/search?${new URLSearchParams([['v:io.gaps.labels', 'pii'], ['v:io.gaps.tier', 'gold']])}`);
    await page.getByRole('alert').filter({ hasText: 'io.gaps.labels, which does not exist (it may have been deleted)' }).waitFor();
    await resultCount(/^3 results$/);
    expect(await resultNames()).toEqual(['gaps.d1', 'gaps.d2', 'gaps.k1']);
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await page.getByText('The search failed.').count()).toBe(0);
    await page.getByRole('button', { name: 'Remove it from the address' }).click();
    await page.waitForURL(`${server.url}/search?${new URLSearchParams([['v:io.gaps.tier', 'gold']])}`);
    await resultCount(/^3 results$/);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(browser.pageErrors).toEqual([]);
  }, 120_000);
});

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('the console suite runs where Chromium and Meilisearch are (as CI has them)', () => {
  if (process.env.CI === 'true') expect(canRun).toBe(true);
});
