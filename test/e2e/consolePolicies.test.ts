/**
 * The console's cells of the policy matrix (issue #40; the other interfaces are in
 * test/integration/policyMatrix.test.ts and test/e2e/cliPolicies.test.ts), in headless
 * Chromium, people signing in at the real OpenID provider: the console offers the edit
 * controls the policies give a person, entity by entity and property by property, and
 * none other, while the server still refuses what a hand-made request asks; a policy
 * administrator lists the policies, turns one off, and asks who could edit acme.pii on a
 * dataset. A person who may not manage policies reads them without edit controls. The
 * other privileges the console acts on: reading (someone no policy lets read finds
 * nothing), starting bulk edits, managing one property's definition, hard deletes and
 * metadata tests, each offered exactly when a policy grants it.
 */
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { freePort } from '../../src/embedded/freePort.js';
import { CHROMIUM, launchConsoleBrowser, type ConsoleBrowser } from '../support/browser.js';
import { ensureConsoleBuilt } from '../support/build.js';
import { http } from '../support/http.js';
import { oidcEnv, propgraphClient, startOpenIdProvider, type ProviderPerson, type RunningProvider } from '../support/openIdProvider.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = `pgt_console_policies_${Math.random().toString(36).slice(2)}`;
const V3 = '/openapi/v3';
const haveChromium = existsSync(CHROMIUM);
const PEOPLE = {
  ann: { login: 'ann', password: 'ann-pw', email: 'ann@example.com', name: 'Ann Finance', groups: ['stewards', 'finance'] },
  pia: { login: 'pia', password: 'pia-pw', email: 'pia@example.com', name: 'Pia Privacy', groups: ['stewards', 'privacy'] },
  ada: { login: 'ada', password: 'ada-pw', email: 'ada@example.com', name: 'Ada Policies', groups: ['admins', 'policy-admins'] },
  val: { login: 'val', password: 'val-pw', email: 'val@example.com', name: 'Val Visitor', groups: ['staff'] },
} satisfies Record<string, ProviderPerson>;
const FIN = 'urn:li:dataset:(urn:li:dataPlatform:hive,console.fin.ledger,PROD)';
const MKT = 'urn:li:dataset:(urn:li:dataPlatform:hive,console.mkt.leads,PROD)';

const POLICIES = [
  { id: 'k-read', displayName: 'Stewards and admins read', privileges: ['VIEW_ENTITY_PAGE'], actors: { groups: ['stewards', 'admins'] } },
  {
    id: 'k-finance',
    displayName: 'Finance edits finance datasets',
    privileges: ['EDIT_ENTITY', 'EDIT_ENTITY_PROPERTIES'],
    actors: { groups: ['finance'] },
    resources: { filter: { criteria: [{ field: 'structuredProperties.acme.domain', values: ['finance'] }] } },
  },
  { id: 'k-privacy', displayName: 'Privacy edits acme.pii', privileges: ['EDIT_ENTITY_PROPERTIES'], actors: { groups: ['privacy'] }, resources: { privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme.pii'] }] } } },
  { id: 'k-admins', displayName: 'Policy admins manage policies', type: 'PLATFORM', privileges: ['MANAGE_POLICIES'], actors: { groups: ['policy-admins'] } },
  { id: 'k-finance-bulk', displayName: 'Finance bulk edits', type: 'PLATFORM', privileges: ['BULK_EDIT'], actors: { groups: ['finance'] } },
  { id: 'k-finance-tier', displayName: 'Finance defines acme.tier', privileges: ['MANAGE_STRUCTURED_PROPERTIES'], actors: { groups: ['finance'] }, resources: { privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme.tier'] }] } } },
];

(haveChromium ? describe : describe.skip)('the console follows the policies', () => {
  let provider: RunningProvider;
  let server: TestServer;
  let browser: ConsoleBrowser;
  let page: Page;
  const asRoot = (method: string, path: string, json?: unknown) => http(server.url, method, path, { ...(json !== undefined ? { json } : {}), headers: { authorization: `Bearer ${ROOT}` } });
  const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();

  beforeAll(async () => {
    await ensureConsoleBuilt();
    const port = await freePort();
    provider = await startOpenIdProvider({ clients: [propgraphClient(`http://127.0.0.1:${port}/auth/callback`)], people: Object.values(PEOPLE) });
    server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, PORT: String(port), RATE_LIMIT_PER_MINUTE: '1000000', ...oidcEnv(provider.issuer) } });
    for (const qn of ['acme.domain', 'acme.tier', 'acme.pii']) {
      const made = await asRoot('POST', `${V3}/entity/structuredProperty/${encodeURIComponent(`urn:li:structuredProperty:${qn}`)}/propertyDefinition`, {
        value: { qualifiedName: qn, displayName: qn, valueType: 'urn:li:dataType:svc.string', cardinality: 'SINGLE', entityTypes: ['urn:li:entityType:svc.dataset'] },
      });
      expect(made.status).toBe(200);
    }
    for (const [urn, domain] of [[FIN, 'finance'], [MKT, 'marketing']]) {
      const made = await asRoot('POST', `${V3}/entity/dataset`, [{ urn, status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: 'urn:li:structuredProperty:acme.domain', values: [{ string: domain }] }] } } }]);
      expect(made.status).toBe(200);
    }
    expect((await http(server.url, 'POST', `${V3}/policies/apply`, { query: { prune: 'true' }, json: { policies: POLICIES }, headers: { authorization: `Bearer ${ROOT}` } })).status).toBe(200);
    browser = await launchConsoleBrowser();
    page = browser.page;
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await provider?.stop();
  });

  /** Signs in at the provider's own pages, as a person would, from a fresh browser state. */
  async function signInAs(person: ProviderPerson, path: string): Promise<void> {
    await browser.context.clearCookies();
    await page.goto(`${server.url}${path}`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.getByLabel('Username').fill(person.login);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByText(person.email).first().waitFor();
  }

  const entityPath = (urn: string) => `/entity/${encodeURIComponent(urn)}`;
  const valuesTable = () => page.getByRole('table', { name: 'Property values' });
  /** A GraphQL request from the page, as the console would send it (the session cookie, same origin). */
  const fromThePage = (query: string, variables: Record<string, unknown>) =>
    page.evaluate(async ([q, v]) => (await fetch('/api/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: q, variables: v }) })).json(), [query, variables] as const);

  test('a finance steward is offered edits on a finance dataset, none on a marketing one, and the server refuses a hand-made one', async () => {
    await signInAs(PEOPLE.ann, entityPath(FIN));
    await valuesTable().getByRole('button', { name: 'Edit acme.tier' }).waitFor();
    await page.goto(`${server.url}${entityPath(MKT)}`);
    await valuesTable().getByRole('row', { name: /acme\.tier/ }).waitFor();
    expect(await valuesTable().getByRole('button', { name: /^Edit / }).count()).toBe(0);
    const answer = (await fromThePage('mutation m($a: String!) { upsertStructuredProperties(input: {assetUrn: $a, structuredPropertyInputParams: [{structuredPropertyUrn: "urn:li:structuredProperty:acme.tier", values: [{stringValue: "gold"}]}]}) { properties { associatedUrn } } }', { a: MKT })) as { errors?: Array<{ message: string; extensions: { code: string; reason: string } }> };
    expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'MISSING_PRIVILEGE' });
    expect(answer.errors?.[0]?.message).toMatch(/needs the EDIT_ENTITY_PROPERTIES privilege/);
  }, 120_000);

  test('the privacy team is offered acme.pii, and only acme.pii, on any dataset', async () => {
    await signInAs(PEOPLE.pia, entityPath(MKT));
    await valuesTable().getByRole('button', { name: 'Edit acme.pii' }).waitFor();
    expect(await valuesTable().getByRole('button', { name: 'Edit acme.tier' }).count()).toBe(0);
    await valuesTable().getByRole('row', { name: /acme\.tier/ }).getByText('Not yours to edit').waitFor();
  }, 120_000);

  test('someone who may not manage policies reads them, with no edit controls', async () => {
    await page.goto(`${server.url}/policies`);
    await heading('Policies');
    await page.getByRole('row', { name: /Finance edits finance datasets/ }).waitFor();
    expect(await page.getByRole('button', { name: /^(Edit|Turn off|Delete) / }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'New policy' }).count()).toBe(0);
  }, 60_000);

  test('a policy administrator turns a policy off, and asks who could edit acme.pii on a dataset', async () => {
    await signInAs(PEOPLE.ada, '/policies');
    await heading('Policies');
    await page.getByRole('button', { name: 'Turn off Finance edits finance datasets' }).click();
    await page.getByText('Finance edits finance datasets turned off.').waitFor();
    const stored = await asRoot('GET', `${V3}/policies/k-finance`);
    expect(stored.body.dataHubPolicyInfo.state).toBe('INACTIVE');

    await page.getByLabel('Privilege').selectOption('EDIT_ENTITY_PROPERTIES');
    await page.getByLabel('Entity urn').fill(MKT);
    await page.getByLabel('Property (for values and definitions)').fill('acme.pii');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByRole('heading', { name: 'Who could' }).waitFor();
    await page.getByText(/urn:li:corpGroup:privacy \(by Privacy edits acme\.pii\)/).waitFor();
    await page.getByText(/may not EDIT_ENTITY_PROPERTIES/).waitFor();
    expect(browser.pageErrors).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
    expect(browser.offHostRequests.filter((u) => !u.startsWith(provider.issuer))).toEqual([]);
  }, 120_000);

  test('VIEW_ENTITY_PAGE: someone no policy lets read finds nothing, and a dataset page names the privilege they lack', async () => {
    // The policies as the suite began (the administrator above turned the finance policy off).
    expect((await http(server.url, 'POST', `${V3}/policies/apply`, { query: { prune: 'true' }, json: { policies: POLICIES }, headers: { authorization: `Bearer ${ROOT}` } })).status).toBe(200);
    await signInAs(PEOPLE.val, '/search?q=name%3Aconsole');
    await page.locator('p.result-count').filter({ hasText: '0 results' }).waitFor();
    await page.goto(`${server.url}${entityPath(FIN)}`);
    await page.getByText(/needs the VIEW_ENTITY_PAGE privilege on urn:li:dataset:\(urn:li:dataPlatform:hive,console\.fin\.ledger,PROD\)/).waitFor();
    await signInAs(PEOPLE.ann, '/search?q=name%3Aconsole');
    await page.locator('p.result-count').filter({ hasText: '2 results' }).waitFor();
  }, 120_000);

  test('BULK_EDIT: the search offers a bulk edit to a steward a policy lets start one, and not to another', async () => {
    await page.getByRole('button', { name: 'Select all 2 matching' }).waitFor();
    await signInAs(PEOPLE.pia, '/search?q=name%3Aconsole');
    await page.locator('p.result-count').filter({ hasText: '2 results' }).waitFor();
    expect(await page.getByRole('button', { name: /^Select all \d+ matching$/ }).count()).toBe(0);
    expect(await page.getByRole('checkbox', { name: /^Select / }).count()).toBe(0);
  }, 120_000);

  test('MANAGE_STRUCTURED_PROPERTIES limited to acme.tier: its page offers Edit and Soft delete, acme.pii\'s none', async () => {
    await signInAs(PEOPLE.ann, '/properties/urn%3Ali%3AstructuredProperty%3Aacme.tier');
    const actions = page.getByRole('group', { name: 'Property actions' });
    await actions.getByRole('link', { name: 'Edit' }).waitFor();
    await actions.getByRole('button', { name: 'Soft delete' }).waitFor();
    await page.goto(`${server.url}/properties/${encodeURIComponent('urn:li:structuredProperty:acme.pii')}`);
    await actions.getByText('Not yours to change').waitFor();
    expect(await actions.locator('a, button').count()).toBe(0);
  }, 120_000);

  test('DELETE_ENTITY and MANAGE_TESTS: a policy administrator is offered hard deletes and new tests once a policy grants them', async () => {
    await signInAs(PEOPLE.ada, '/tests');
    await heading('Metadata tests');
    expect(await page.getByRole('link', { name: 'New test' }).count()).toBe(0);
    await page.goto(`${server.url}/properties/${encodeURIComponent('urn:li:structuredProperty:acme.pii')}`);
    await page.getByRole('heading', { level: 1, name: 'acme.pii' }).waitFor();
    expect(await page.getByRole('button', { name: 'Delete permanently' }).count()).toBe(0);
    const granted = await asRoot('POST', `${V3}/policies`, { id: 'k-admins-more', displayName: 'Policy admins delete and manage tests', privileges: ['DELETE_ENTITY', 'MANAGE_TESTS'], actors: { groups: ['policy-admins'] } });
    expect(granted.status).toBe(200);
    await page.reload();
    await page.getByRole('button', { name: 'Delete permanently' }).waitFor();
    await page.goto(`${server.url}/tests`);
    await page.getByRole('link', { name: 'New test' }).waitFor();
    expect(browser.pageErrors).toEqual([]);
  }, 120_000);
});
