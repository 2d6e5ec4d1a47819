/**
 * The catalog of record in the console (issue #39, "Done when"; docs/contract.md §14): a
 * steward's day in headless Chromium against one real server (PostgreSQL, Meilisearch,
 * authentication on) and a real OpenID provider, two people signed in through it, each
 * in a browser context of their own:
 *
 * 1. Retiring an allowed value no dataset holds is compatible: the form says so before
 *    Save, Save keeps all 258 values, and the timeline tells the change.
 * 2. Retiring the value 258 datasets hold: the form names the breaking change and its
 *    holders, offers a migration (remap 1 → 2) with its effect and examples before Save,
 *    and the property page follows the job to its end; the history shows each of the 258
 *    changes by the steward via migration, and the migration's start and end. A value
 *    type change converts the values the same way (numbers to text).
 * 3. Two people save the same dataset: the second is told who changed what since and
 *    chooses, property by property; nothing is lost. A machine's write since is told as
 *    one. Taking the other's writes nothing.
 * 4. Two people save the same definition: the second merges field by field.
 * 5. Soft delete and restore are told in the property's timeline.
 * 6. A hard delete in the console, then a sentinel scan finds its value in no table and
 *    no search document; the timeline keeps that it happened.
 * 7. A metadata test's page tells its lifecycle, a machine token's act marked as one; a
 *    test saved over a machine's change is told, and Take theirs reloads the form.
 *
 * Every new or changed page is scanned with axe-core; nothing may leave this machine,
 * hit the Content-Security-Policy or throw. Screenshots go to test-artifacts/console/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { freePort } from '../../src/embedded/freePort.js';
import { axeViolations, serious, type Violation } from '../support/accessibility.js';
import { consoleWalk, launchConsoleBrowser, type ConsoleBrowser } from '../support/browser.js';
import { ensureConsoleBuilt, ROOT } from '../support/build.js';
import { graphql } from '../support/graphql.js';
import { enc, http, indexCaughtUp } from '../support/http.js';
import { oidcEnv, PEOPLE, propgraphClient, startOpenIdProvider, type ProviderPerson, type RunningProvider } from '../support/openIdProvider.js';
import { documentsHolding, tablesHolding } from '../support/sentinelScan.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';
import { expectEvery } from '../support/nonEmpty.js';

const ROOT_TOKEN = `pgt_record_${Math.random().toString(36).slice(2)}`;
const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'console');
const HOLDERS = 258;
const P = (qn: string) => `urn:li:structuredProperty:${qn}`;
const RETENTION = P('record.retention');
const TIER = P('record.tier');
const REGION = P('record.region');
const OWNER = P('record.owner');
const DAYS = P('record.days');
const dataset = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,record.t${String(i).padStart(3, '0')},PROD)`;
const SHARED = dataset(0);
/** A dataset that holds no value when the walk starts. */
const BARE = `urn:li:dataset:(urn:li:dataPlatform:hive,record.bare,PROD)`;
const SENTINEL = `sentinel-owner-${randomUUID()}`;
const TEST_URN = 'urn:li:test:record.has-tier';

const walk = consoleWalk('consoleCatalogOfRecord', 'the catalog-of-record walk');

walk('the catalog of record in the console: a steward’s day', () => {
  let provider: RunningProvider;
  let server: TestServer;
  /** Alice (admin) and Bob (steward, write), each signed in in a browser of their own. */
  let alice: ConsoleBrowser;
  let bob: ConsoleBrowser;
  const violations: Violation[] = [];
  const scanned: string[] = [];
  const admin = { authorization: `Bearer ${ROOT_TOKEN}` };
  const gql = (query: string, variables?: Record<string, unknown>) => graphql(server.url, query, variables, '/api/graphql', admin);

  async function scan(page: Page, name: string): Promise<void> {
    scanned.push(name);
    violations.push(...(await axeViolations(page, name)).filter(serious));
  }
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name, exact: typeof name === 'string' }).waitFor();
  const status = (page: Page, text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).first().waitFor({ timeout: 120_000 });

  /** Through the provider's own pages, as a person signs in. */
  async function signInAs(page: Page, person: ProviderPerson): Promise<void> {
    await page.goto(`${server.url}/properties`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await heading(page, 'Sign in to the test provider');
    await page.getByLabel('Username').fill(person.login);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'Allow access');
    await page.getByRole('button', { name: 'Allow' }).click();
    await heading(page, 'Structured properties');
  }

  async function define(id: string, displayName: string, valueType: string, allowed: Array<string | number>): Promise<void> {
    const res = await gql('mutation c($input: CreateStructuredPropertyInput!) { createStructuredProperty(input: $input) { urn } }', {
      input: {
        id,
        displayName,
        valueType: `urn:li:dataType:${valueType}`,
        entityTypes: ['urn:li:entityType:dataset'],
        allowedValues: allowed.map((v) => (typeof v === 'number' ? { numberValue: v } : { stringValue: v })),
      },
    });
    expect(res.errors).toBeUndefined();
  }

  /** The values a dataset holds now, by property urn (numbers as the API writes them). */
  async function held(urn: string): Promise<Record<string, unknown[]>> {
    const res = await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(urn)}/structuredProperties`, { headers: admin });
    expect(res.status).toBe(200);
    const properties = res.body.structuredProperties.value.properties as Array<{ propertyUrn: string; values: Array<{ string?: string; double?: number }> }>;
    return Object.fromEntries(properties.map((p) => [p.propertyUrn, p.values.map((v) => v.string ?? v.double)]));
  }

  async function history(input: Record<string, unknown>) {
    const res = await gql(
      'query h($input: ValueHistoryInput!) { valueHistory(input: $input) { nextScrollId entries { urn actorUrn via changes { structuredProperty { urn } before { ... on NumberValue { numberValue } ... on StringValue { stringValue } } after { ... on NumberValue { numberValue } ... on StringValue { stringValue } } } } events { event actorUrn via detail } } }',
      { input },
    );
    expect(res.errors).toBeUndefined();
    return res.data.valueHistory as {
      nextScrollId: string | null;
      entries: Array<{ urn: string; actorUrn: string; via: string | null; changes: Array<{ structuredProperty: { urn: string }; before: unknown[] | null; after: unknown[] | null }> }>;
      events: Array<{ event: string; actorUrn: string; via: string | null; detail: string | null }>;
    };
  }

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await ensureConsoleBuilt();
    const port = await freePort();
    provider = await startOpenIdProvider({ clients: [propgraphClient(`http://127.0.0.1:${port}/auth/callback`)] });
    server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN, PORT: String(port), RATE_LIMIT_PER_MINUTE: '10000000', ...oidcEnv(provider.issuer) } });
    await define('record.retention', 'Retention', 'number', [1, 2, 3]);
    await define('record.tier', 'Tier', 'string', ['gold', 'silver', 'bronze']);
    await define('record.region', 'Region', 'string', ['eu', 'us']);
    await define('record.owner', 'Owner', 'string', []);
    await define('record.days', 'Days kept', 'number', []);
    const batch = Array.from({ length: HOLDERS }, (_, i) => ({
      urn: dataset(i),
      datasetProperties: { value: { name: `record.t${String(i).padStart(3, '0')}` } },
      structuredProperties: {
        value: {
          properties: [
            { propertyUrn: RETENTION, values: [{ double: 1 }] },
            ...(i === 0 ? [{ propertyUrn: TIER, values: [{ string: 'gold' }] }, { propertyUrn: REGION, values: [{ string: 'eu' }] }] : []),
            ...(i % 50 === 0 ? [{ propertyUrn: OWNER, values: [{ string: SENTINEL }] }] : []),
            ...(i < 3 ? [{ propertyUrn: DAYS, values: [{ double: 30 * (i + 1) }] }] : []),
          ],
        },
      },
    }));
    const bare = { urn: BARE, datasetProperties: { value: { name: 'record.bare' } } };
    expect((await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: [...batch, bare], headers: admin })).status).toBe(200);
    const test = await gql('mutation t($input: CreateTestInput!) { createTest(input: $input) }', {
      input: {
        id: 'record.has-tier',
        name: 'Has a tier',
        category: 'Governance',
        definition: { json: JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: `structuredProperties.${TIER}`, operator: 'exists' }] }) },
      },
    });
    expect(test.errors).toBeUndefined();
    alice = await launchConsoleBrowser();
    bob = await launchConsoleBrowser();
    await signInAs(alice.page, PEOPLE.alice);
    await signInAs(bob.page, PEOPLE.bob);
  }, 600_000);

  afterAll(async () => {
    await alice?.close();
    await bob?.close();
    await server?.stop();
    await provider?.stop();
  });

  test('retiring an allowed value no dataset holds is compatible: said before Save, every value kept, told in the timeline', async () => {
    const page = bob.page;
    await page.goto(`${server.url}/properties/${enc(RETENTION)}/edit`);
    await heading(page, 'Edit Retention');
    await status(page, 'Compatible: saving keeps every stored value.');
    await page.getByRole('button', { name: 'Remove value 3' }).click();
    await page.getByText('Checking what saving would change…').waitFor({ state: 'detached' }).catch(() => undefined);
    await status(page, 'Compatible: saving keeps every stored value.');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await heading(page, 'Retention');
    const allowed = await page.getByRole('table', { name: 'Allowed values' }).locator('tbody td:first-child').allInnerTexts();
    expect(allowed).toEqual(['1', '2']);
    await page.getByText(`${HOLDERS} entities hold a value`).waitFor();
    const changed = page.locator('section.history li.lifecycle[data-event="changed"]').first();
    await changed.waitFor();
    expect(await changed.innerText()).toMatch(/urn:li:corpuser:bob\S*[\s\S]*via console[\s\S]*Definition changed/);
    expect(Object.values(await held(dataset(7)))).toEqual([[1]]);
    const events = (await history({ propertyUrn: RETENTION, count: 0 })).events.map((e) => e.event);
    expect(events).toEqual(['changed', 'created']);
  }, 180_000);

  test(`retiring the value ${HOLDERS} datasets hold: the form offers a migration and shows its effect before Save; the job is followed to its end; each change is history`, async () => {
    const page = bob.page;
    await page.goto(`${server.url}/properties/${enc(RETENTION)}/edit`);
    await heading(page, 'Edit Retention');
    await status(page, 'Compatible: saving keeps every stored value.');
    await page.getByRole('button', { name: 'Remove value 1' }).click();
    const breaking = page.getByRole('status').filter({ hasText: 'Breaking change:' });
    await breaking.waitFor();
    expect(await breaking.innerText()).toContain(`${HOLDERS} entities hold values it breaks`);
    expect(await breaking.innerText()).toContain(`A new version would hide and then remove ${HOLDERS} values on ${HOLDERS} entities`);
    await breaking.getByRole('button', { name: 'Migrate the values' }).click();
    const migration = page.getByRole('group', { name: 'Migration: keep the values the change breaks' });
    await migration.waitFor();
    expect(await migration.getByLabel('Retired value 1', { exact: true }).inputValue()).toBe('1');
    await migration.getByLabel('Retired value 1 becomes').selectOption('2');
    const effect = page.getByRole('status').filter({ hasText: 'Migration:' });
    await effect.waitFor();
    expect(await effect.innerText()).toContain(`it changes the values of ${HOLDERS} entities of the ${HOLDERS} holding any`);
    const rule = effect.getByRole('table', { name: 'What the migration does, rule by rule' }).locator('tbody tr').first();
    expect((await rule.locator('td').allInnerTexts()).slice(0, 2)).toEqual([String(HOLDERS), String(HOLDERS)]);
    expect(await rule.locator('td').nth(2).innerText()).toMatch(/urn:li:dataset:\S+: 1 → 2/);
    await shot(page, '15-migration-before-save');
    await scan(page, 'property-form-migration');
    // Nothing is written before Save.
    expect(Object.values(await held(dataset(7)))).toEqual([[1]]);

    await page.getByRole('button', { name: 'Save changes' }).click();
    await heading(page, 'Retention');
    await status(page, `Migration complete: 100% (${HOLDERS} of ${HOLDERS} entities). Every value is rewritten as the migration says.`);
    // The counts follow the job to its end.
    await page.getByText(`${HOLDERS} entities hold a value`).waitFor();
    const finished = page.locator('section.history li.lifecycle[data-event="migrationFinished"]');
    await finished.waitFor();
    const timeline = page.locator('section.history');
    await timeline.getByText('Retention: 1 → 2').first().waitFor();
    await shot(page, '16-migration-done');
    expect(await finished.innerText()).toMatch(/urn:li:corpuser:bob[\s\S]*via migration[\s\S]*Migration finished \(258 entities rewritten\)/);
    // The start stands in time order, below the changes it made: older pages bring it.
    const started = timeline.locator('li.lifecycle[data-event="migrationStarted"]');
    while ((await started.count()) === 0) await timeline.getByRole('button', { name: 'Show older changes' }).click();
    expect(await started.innerText()).toContain(`Migration started (remap: changes the values of ${HOLDERS} entities of the ${HOLDERS} holding any)`);
    await scan(page, 'property-migration-done');

    // Every value kept, as the migration says; each change a history entry by the steward, via migration.
    for (const i of [0, 7, HOLDERS - 1]) expect((await held(dataset(i)))[RETENTION]).toEqual([2]);
    const all = await history({ propertyUrn: RETENTION, count: 1000 });
    const migrated = all.entries.filter((e) => e.via === 'migration');
    expect(migrated).toHaveLength(HOLDERS);
    expect(new Set(migrated.map((e) => e.urn)).size).toBe(HOLDERS);
    expect(new Set(migrated.map((e) => e.actorUrn))).toEqual(new Set([all.events.find((e) => e.event === 'migrationStarted')!.actorUrn]));
    expect(migrated[0]!.actorUrn).toMatch(/^urn:li:corpuser:bob/);
    expectEvery(migrated, (e) => JSON.stringify(e.changes) === JSON.stringify([{ structuredProperty: { urn: RETENTION }, before: [{ numberValue: 1 }], after: [{ numberValue: 2 }] }]));
    expect(all.events.map((e) => e.event)).toEqual(['migrationFinished', 'migrationStarted', 'changed', 'created']);
  }, 300_000);

  test('a value type change converts the stored values through the console’s migration: numbers become text as people write them', async () => {
    const page = bob.page;
    await page.goto(`${server.url}/properties/${enc(DAYS)}/edit`);
    await heading(page, 'Edit Days kept');
    await status(page, 'Compatible: saving keeps every stored value.');
    await page.getByLabel('Value type').selectOption('string');
    const breaking = page.getByRole('status').filter({ hasText: 'Breaking change:' });
    await breaking.waitFor();
    expect(await breaking.innerText()).toContain('3 entities hold values it breaks');
    await breaking.getByRole('button', { name: 'Migrate the values' }).click();
    const migration = page.getByRole('group', { name: 'Migration: keep the values the change breaks' });
    expect(await migration.getByLabel(/Convert the values to the new value type/).isChecked()).toBe(true);
    const effect = page.getByRole('status').filter({ hasText: 'Migration:' });
    await effect.waitFor();
    expect(await effect.innerText()).toContain('it changes the values of 3 entities of the 3 holding any');
    expect(await effect.innerText()).toMatch(/: 30 → 30\b/);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await heading(page, 'Days kept');
    await status(page, 'Migration complete: 100% (3 of 3 entities). Every value is rewritten as the migration says.');
    expect((await held(dataset(1)))[DAYS]).toEqual(['60']);
    expect(await page.locator('dl.definition').innerText()).toMatch(/Value type\s+Text/);
  }, 180_000);

  test('two people save the same dataset: the second is told who changed what since, and chooses property by property; nothing is lost', async () => {
    const a = alice.page;
    const b = bob.page;
    await Promise.all([a, b].map((p) => p.goto(`${server.url}/entity/${enc(SHARED)}`)));
    await Promise.all([a, b].map((p) => heading(p, 'record.t000')));
    const row = (p: Page, qn: string) => p.locator(`tr[data-property="${qn}"]`);
    await Promise.all([a, b].map((p) => row(p, 'record.tier').getByText('gold').waitFor()));

    // Alice saves a tier and a region; Bob's page still shows what he opened.
    await row(a, 'record.tier').getByRole('button', { name: 'Edit Tier' }).click();
    await a.getByLabel('Value of Tier').selectOption('silver');
    await a.getByRole('button', { name: 'Save Tier' }).click();
    await status(a, 'Tier saved.');
    await row(a, 'record.region').getByRole('button', { name: 'Edit Region' }).click();
    await a.getByLabel('Value of Region').selectOption('us');
    await a.getByRole('button', { name: 'Save Region' }).click();
    await status(a, 'Region saved.');

    await row(b, 'record.tier').getByRole('button', { name: 'Edit Tier' }).click();
    await b.getByLabel('Value of Tier').selectOption('bronze');
    await b.getByRole('button', { name: 'Save Tier' }).click();
    const told = b.locator('section.stale');
    await told.getByRole('heading', { name: 'Not saved: someone changed this entity after you opened it' }).waitFor();
    const who = await told.getByRole('alert').innerText();
    expect(who.match(/urn:li:corpuser:alice|alice@example\.com|alice/g)?.length).toBeGreaterThanOrEqual(2);
    expect(who).toContain('via console');
    const changes = told.getByRole('table', { name: 'Their changes and yours, property by property: choose which stands' });
    expect(await changes.locator('tr[data-property="record.tier"] td').allInnerTexts()).toEqual(expect.arrayContaining(['gold', 'silver', 'bronze']));
    expect(await changes.locator('tr[data-property="record.region"] td').allInnerTexts()).toEqual(expect.arrayContaining(['eu', 'us', 'eu (as you opened it)']));
    // Nothing of Bob's was written, and Alice's values stand.
    expect(await held(SHARED)).toMatchObject({ [TIER]: ['silver'], [REGION]: ['us'] });
    await shot(b, '17-stale-save-told');
    await scan(b, 'entity-stale-save');

    // Bob keeps his tier and her region.
    expect(await changes.locator('tr[data-property="record.tier"]').getByLabel('Yours').isChecked()).toBe(true);
    expect(await changes.locator('tr[data-property="record.region"]').getByLabel('Theirs').isChecked()).toBe(true);
    await told.getByRole('button', { name: 'Save my choices' }).click();
    await status(b, 'Saved over the change made since: Tier.');
    await row(b, 'record.tier').getByText('bronze').waitFor();
    await row(b, 'record.region').getByText('us').waitFor();
    expect(await held(SHARED)).toMatchObject({ [TIER]: ['bronze'], [REGION]: ['us'] });

    // Alice's page is now the stale one, and a machine token wrote since too:
    // she is told both, each for what it is, and takes theirs; nothing is written.
    const machine = await gql('mutation u($input: UpsertStructuredPropertiesInput!) { upsertStructuredProperties(input: $input) { aspectVersion } }', {
      input: { assetUrn: SHARED, structuredPropertyInputParams: [{ structuredPropertyUrn: REGION, values: [{ stringValue: 'eu' }] }] },
    });
    expect(machine.errors).toBeUndefined();
    await row(a, 'record.tier').getByRole('button', { name: 'Edit Tier' }).click();
    await a.getByLabel('Value of Tier').selectOption('gold');
    await a.getByRole('button', { name: 'Save Tier' }).click();
    const aliceTold = a.locator('section.stale');
    await aliceTold.getByRole('heading', { name: 'Not saved: someone changed this entity after you opened it' }).waitFor();
    const aliceReads = await aliceTold.getByRole('alert').innerText();
    expect(aliceReads).toMatch(/bob@example\.com at .* via console/);
    expect(aliceReads).toMatch(/root \(machine token\) at .* via graphql/);
    expect(await aliceTold.locator('tr[data-property="record.tier"] td').allInnerTexts()).toEqual(expect.arrayContaining(['silver', 'bronze', 'gold']));
    await aliceTold.getByRole('button', { name: 'Take theirs' }).click();
    await status(a, 'Your change of Tier was discarded; the page shows what is stored now.');
    await row(a, 'record.tier').getByText('bronze').waitFor();
    expect(await held(SHARED)).toMatchObject({ [TIER]: ['bronze'], [REGION]: ['eu'] });

    // Nothing lost: every save anyone made is in the entity's history, in order.
    const tiers = (await history({ urn: SHARED, propertyUrn: TIER, count: 10 })).entries.map((e) => [e.actorUrn.replace(/^urn:li:corpuser:([a-z]+).*$/, '$1'), JSON.stringify(e.changes[0]!.after)]);
    expect(tiers.slice(0, 2)).toEqual([
      ['bob', JSON.stringify([{ stringValue: 'bronze' }])],
      ['alice', JSON.stringify([{ stringValue: 'silver' }])],
    ]);
  }, 240_000);

  test('a dataset that held no value: a save is told when someone wrote its first values since the page was read', async () => {
    const page = bob.page;
    await page.goto(`${server.url}/entity/${enc(BARE)}`);
    await heading(page, 'record.bare');
    const tier = page.locator('tr[data-property="record.tier"]');
    await tier.getByText('No value').waitFor();
    const first = await gql('mutation u($input: UpsertStructuredPropertiesInput!) { upsertStructuredProperties(input: $input) { aspectVersion } }', {
      input: { assetUrn: BARE, structuredPropertyInputParams: [{ structuredPropertyUrn: REGION, values: [{ stringValue: 'us' }] }] },
    });
    expect(first.errors).toBeUndefined();
    await tier.getByRole('button', { name: 'Edit Tier' }).click();
    await page.getByLabel('Value of Tier').selectOption('gold');
    await page.getByRole('button', { name: 'Save Tier' }).click();
    const told = page.locator('section.stale');
    await told.getByRole('heading', { name: 'Not saved: someone changed this entity after you opened it' }).waitFor();
    expect(await told.getByRole('alert').innerText()).toMatch(/root \(machine token\) at .* via graphql/);
    expect(await told.locator('tr[data-property="record.region"] td').allInnerTexts()).toEqual(expect.arrayContaining(['no value', 'us']));
    expect(await held(BARE)).toEqual({ [REGION]: ['us'] });
    await told.getByRole('button', { name: 'Keep mine' }).click();
    await status(page, 'Saved over the change made since: Tier.');
    expect(await held(BARE)).toEqual({ [REGION]: ['us'], [TIER]: ['gold'] });
  }, 120_000);

  test('two people save the same definition: the second merges field by field, and both changes stand', async () => {
    const a = alice.page;
    const b = bob.page;
    await Promise.all([a, b].map((p) => p.goto(`${server.url}/properties/${enc(TIER)}/edit`)));
    await Promise.all([a, b].map((p) => heading(p, 'Edit Tier')));
    await a.getByLabel('Description', { exact: true }).fill('How critical the dataset is');
    await a.getByRole('button', { name: 'Save changes' }).click();
    await heading(a, 'Tier');

    await b.getByLabel('Display name').fill('Service tier');
    await b.getByRole('button', { name: 'Save changes' }).click();
    const told = b.locator('section.stale');
    await told.getByRole('heading', { name: 'Not saved: someone changed this property after you opened the form' }).waitFor();
    const description = told.locator('tr[data-field="description"]');
    expect(await description.locator('td').allInnerTexts()).toEqual(expect.arrayContaining(['none', 'How critical the dataset is']));
    expect(await description.getByLabel('Theirs').isChecked()).toBe(true);
    await scan(b, 'definition-stale-save');
    await shot(b, '18-definition-stale-merge');
    await told.getByRole('button', { name: 'Merge into the form' }).click();
    await status(b, /Merged: their description and the rest of yours/);
    expect(await b.getByLabel('Description', { exact: true }).inputValue()).toBe('How critical the dataset is');
    expect(await b.getByLabel('Display name').inputValue()).toBe('Service tier');
    await status(b, 'Compatible: saving keeps every stored value.');
    await b.getByRole('button', { name: 'Save changes' }).click();
    await heading(b, 'Service tier');
    const stored = await gql('query p($u: String!) { structuredProperty(urn: $u) { definition { displayName description } } }', { u: TIER });
    expect(stored.data.structuredProperty.definition).toEqual({ displayName: 'Service tier', description: 'How critical the dataset is' });
  }, 180_000);

  test('soft delete and restore are told in the property’s timeline, the soft-deleted property’s too', async () => {
    const page = alice.page;
    await page.goto(`${server.url}/properties/${enc(TIER)}`);
    await heading(page, 'Service tier');
    await page.getByRole('button', { name: 'Soft delete' }).click();
    await status(page, 'Soft deleted: the property and its values are hidden until it is restored.');
    const softDeleted = page.locator('section.history li.lifecycle[data-event="softDeleted"]');
    await softDeleted.waitFor();
    expect(await softDeleted.innerText()).toMatch(/urn:li:corpuser:alice\S* · via console[\s\S]*Soft deleted/);
    await scan(page, 'property-soft-deleted-history');
    await page.getByRole('button', { name: 'Restore' }).click();
    await status(page, 'Restored: the property and its values are visible again.');
    await page.locator('section.history li.lifecycle[data-event="restored"]').waitFor();
    expect((await history({ propertyUrn: TIER, count: 0 })).events.map((e) => e.event).slice(0, 3)).toEqual(['restored', 'softDeleted', 'changed']);
  }, 120_000);

  test('a hard delete in the console: cleanup to 100%, then the sentinel is in no table and no search document; the timeline keeps that it happened', async () => {
    const page = alice.page;
    await indexCaughtUp(server.url, undefined, admin.authorization);
    expect(Object.keys(await tablesHolding(server, SENTINEL))).toEqual(expect.arrayContaining(['aspect', 'property_value']));
    expect(await documentsHolding(server, SENTINEL)).toBeGreaterThan(0);

    await page.goto(`${server.url}/properties/${enc(OWNER)}`);
    await heading(page, 'Owner');
    await page.getByRole('button', { name: 'Delete permanently' }).click();
    await status(page, `This removes ${Math.ceil(HOLDERS / 50)} values on ${Math.ceil(HOLDERS / 50)} entities (Dataset: ${Math.ceil(HOLDERS / 50)}).`);
    await page.getByRole('button', { name: 'Yes, delete permanently' }).click();
    await status(page, /Cleanup complete: 100%/);
    const deleted = page.locator('section.history li.lifecycle[data-event="hardDeleted"]');
    await deleted.waitFor();
    expect(await deleted.innerText()).toMatch(/urn:li:corpuser:alice[\s\S]*Deleted permanently/);
    await shot(page, '19-hard-delete-history');
    await scan(page, 'property-hard-deleted');

    await waitFor('the index to leave the sentinel', 60_000, async () => {
      await indexCaughtUp(server.url, undefined, admin.authorization);
      return (await documentsHolding(server, SENTINEL)) === 0 ? true : undefined;
    });
    expect(await tablesHolding(server, SENTINEL)).toEqual({});
  }, 240_000);

  test('a metadata test’s page tells its lifecycle, a machine token’s act marked as one', async () => {
    const page = alice.page;
    await page.goto(`${server.url}/tests/${enc(TEST_URN)}`);
    await heading(page, 'Has a tier');
    const created = page.locator('section.history li.lifecycle[data-event="created"]');
    await created.waitFor();
    expect(await created.innerText()).toMatch(/\(machine token\)[\s\S]*Created/);
    await scan(page, 'test-page-history');
  }, 120_000);

  test('a test edited in the console while a machine token changed it: the save is told, and Take theirs shows what is stored', async () => {
    const page = alice.page;
    await page.goto(`${server.url}/tests/${enc(TEST_URN)}/edit`);
    await heading(page, 'Edit Has a tier');
    const theirs = await gql('mutation u($urn: String!, $input: UpdateTestInput!) { updateTest(urn: $urn, input: $input) }', {
      urn: TEST_URN,
      input: { name: 'Has a tier (loader)', category: 'Governance', definition: { json: JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: `structuredProperties.${TIER}`, operator: 'exists' }] }) } },
    });
    expect(theirs.errors).toBeUndefined();
    await page.getByLabel('Category').fill('Stewardship');
    await page.getByRole('button', { name: 'Save test' }).click();
    const told = page.locator('section.stale');
    await told.getByRole('heading', { name: 'Not saved: someone changed this test after you opened the form' }).waitFor();
    expect(await told.getByRole('alert').innerText()).toMatch(/root \(machine token\) at .* via graphql/);
    expect(await told.locator('tr[data-field="name"] td').allInnerTexts()).toEqual(expect.arrayContaining(['Has a tier', 'Has a tier (loader)']));
    expect(await told.locator('tr[data-field="category"]').count()).toBe(0);
    await scan(page, 'test-form-stale-save');
    await told.getByRole('button', { name: 'Take theirs' }).click();
    await heading(page, 'Edit Has a tier (loader)');
    expect(await page.getByLabel('Category').inputValue()).toBe('Governance');
    const stored = await gql('query t($u: String!) { test(urn: $u) { name category } }', { u: TEST_URN });
    expect(stored.data.test).toEqual({ name: 'Has a tier (loader)', category: 'Governance' });
  }, 120_000);

  test('every page scanned is free of serious accessibility violations; nothing left the machine, hit the CSP or threw', () => {
    expect(scanned.length).toBeGreaterThanOrEqual(6);
    expect(violations).toEqual([]);
    for (const b of [alice, bob]) {
      expect(b.offHostRequests).toEqual([]);
      expect(b.cspViolations).toEqual([]);
      expect(b.pageErrors).toEqual([]);
    }
  });
});
