/**
 * Issue #40's walk, end to end, as the people in it do it (docs/security.md, "Policies"):
 * an administrator signed in through the OpenID provider with `propgraph login` replaces
 * the shipped defaults with "finance stewards edit values on finance datasets; only
 * privacy edits acme.pii" from a file, `policies apply -f --dry-run` first (what changes
 * for whom, nothing written), then for real. A finance steward signs in at the provider
 * in Chromium, edits a finance dataset in the console, is offered nothing on a marketing
 * dataset nor on acme.pii, and is refused (403 naming the privilege, nothing changed)
 * when a request asks anyway; their bulk edit over both datasets changes the finance one
 * and reports the marketing one with the reason; `propgraph access explain`, from their
 * own `propgraph login`, says why.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { freePort } from '../../src/embedded/freePort.js';
import { CHROMIUM, launchConsoleBrowser, type ConsoleBrowser } from '../support/browser.js';
import { ensureConsoleBuilt } from '../support/build.js';
import { databaseChecksum } from '../support/dbChecksum.js';
import { enc, http } from '../support/http.js';
import { approveDevice, oidcEnv, propgraphClient, startOpenIdProvider, type ProviderPerson, type RunningProvider } from '../support/openIdProvider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';
import { cliMain, ensureCliBuilt, runCli, tempDir, writeFile, type CliResult } from './cliRunner.js';

const ROOT = `pgt_policies_walk_${Math.random().toString(36).slice(2)}`;
const V3 = '/openapi/v3';
const haveChromium = existsSync(CHROMIUM);
const PEOPLE = {
  ada: { login: 'ada', password: 'ada-pw', email: 'ada@example.com', name: 'Ada Admin', groups: ['admins'] },
  fay: { login: 'fay', password: 'fay-pw', email: 'fay@example.com', name: 'Fay Finance', groups: ['stewards', 'finance-stewards'] },
} satisfies Record<string, ProviderPerson>;
const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,walk.${name},PROD)`;
const FIN = dataset('fin.ledger');
const MKT = dataset('mkt.leads');
const property = (qn: string) => `urn:li:structuredProperty:${qn}`;
/** Where the walk's screenshots go (docs/console.md shows some of them). */
const ARTIFACTS = path.resolve('test-artifacts', 'console');

/** What the administrator keeps in version control. */
const POLICIES_YAML = `policies:
  - id: everyone-reads
    displayName: Everyone signed in reads
    privileges: [VIEW_ENTITY_PAGE]
    actors: {allUsers: true}
  - id: finance-stewards
    displayName: Finance stewards edit values on finance datasets
    privileges: [EDIT_ENTITY_PROPERTIES]
    actors: {groups: [finance-stewards]}
    resources:
      filter:
        criteria:
          - {field: TYPE, values: [dataset]}
          - {field: structuredProperties.acme.domain, values: [finance]}
      privilegeConstraints:
        criteria: [{field: PROPERTY, values: [acme.pii], condition: NOT_EQUALS}]
  - id: finance-stewards-bulk
    displayName: Finance stewards bulk edit
    type: PLATFORM
    privileges: [BULK_EDIT]
    actors: {groups: [finance-stewards]}
  - id: privacy-pii
    displayName: Only privacy edits acme.pii
    privileges: [EDIT_ENTITY_PROPERTIES]
    actors: {groups: [privacy]}
    resources:
      privilegeConstraints:
        criteria: [{field: PROPERTY, values: [acme.pii]}]
  - id: admins
    displayName: Admins run the catalog
    privileges: [EDIT_ENTITY, EDIT_ENTITY_PROPERTIES, SOFT_DELETE_ENTITY, MANAGE_STRUCTURED_PROPERTIES, DELETE_ENTITY, MANAGE_TESTS]
    actors: {groups: [admins]}
  - id: admins-platform
    displayName: Admins manage tokens and policies
    type: PLATFORM
    privileges: [BULK_EDIT, MANAGE_ACCESS_TOKENS, MANAGE_POLICIES]
    actors: {groups: [admins]}
`;

(haveChromium ? describe : describe.skip)("issue #40's walk: the defaults replaced, a finance steward at the console and the CLI", () => {
  let provider: RunningProvider;
  let server: TestServer;
  let browser: ConsoleBrowser;
  let page: Page;
  const homes: Record<keyof typeof PEOPLE, string> = { ada: '', fay: '' };
  const asRoot = (method: string, path: string, json?: unknown) => http(server.url, method, path, { ...(json !== undefined ? { json } : {}), headers: { authorization: `Bearer ${ROOT}` } });
  /** The CLI as the person signed in with `propgraph login` (the session in their config file). */
  const cliAs = (who: keyof typeof PEOPLE, args: string[]) => runCli(args, { home: homes[who] });
  const valuesOf = async (urn: string) => {
    const res = await asRoot('GET', `${V3}/entity/dataset/${enc(urn)}/structuredProperties`);
    const properties = (res.body?.structuredProperties?.value?.properties ?? []) as Array<{ propertyUrn: string; values: Array<{ string?: string }> }>;
    return Object.fromEntries(properties.map((p) => [p.propertyUrn.split(':').at(-1), p.values.map((v) => v.string)]));
  };

  const shot = async (name: string) => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  };

  /** `propgraph login` in the person's own HOME, approved at the provider as they would on their phone. */
  async function login(who: keyof typeof PEOPLE): Promise<CliResult> {
    const child = spawn(process.execPath, [cliMain, 'login', '--server', server.url, '--name', `${who}'s laptop`], {
      cwd: homes[who],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: homes[who], LANG: 'C.UTF-8' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    const verification = await waitFor('the CLI to print where to sign in', 30_000, async () => /^\(or open (\S+)\)$/m.exec(stdout)?.[1]);
    await approveDevice(verification, PEOPLE[who], { decline: false });
    return { code: await closed, stdout, stderr };
  }

  beforeAll(async () => {
    await Promise.all([ensureCliBuilt(), ensureConsoleBuilt()]);
    homes.ada = tempDir();
    homes.fay = tempDir();
    const port = await freePort();
    provider = await startOpenIdProvider({ clients: [propgraphClient(`http://127.0.0.1:${port}/auth/callback`)], people: Object.values(PEOPLE) });
    server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, PORT: String(port), RATE_LIMIT_PER_MINUTE: '1000000', TEST_EVALUATION: 'false', ...oidcEnv(provider.issuer) } });
    for (const qn of ['acme.domain', 'acme.tier', 'acme.pii']) {
      const made = await asRoot('POST', `${V3}/entity/structuredProperty/${enc(property(qn))}/propertyDefinition`, {
        value: { qualifiedName: qn, displayName: qn, valueType: 'urn:li:dataType:svc.string', cardinality: 'SINGLE', entityTypes: ['urn:li:entityType:svc.dataset'] },
      });
      expect(made.status).toBe(200);
    }
    for (const [urn, domain] of [[FIN, 'finance'], [MKT, 'marketing']] as const) {
      const made = await asRoot('POST', `${V3}/entity/dataset`, [{ urn, status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: property('acme.domain'), values: [{ string: domain }] }] } } }]);
      expect(made.status).toBe(200);
    }
    for (const who of ['ada', 'fay'] as const) expect((await login(who)).code).toBe(0);
    browser = await launchConsoleBrowser();
    page = browser.page;
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await provider?.stop();
    for (const home of Object.values(homes)) if (home) rmSync(home, { recursive: true, force: true });
  });

  test('the administrator applies the file with --dry-run (what changes for whom, nothing written), then for real', async () => {
    const file = writeFile(homes.ada, 'policies.yaml', POLICIES_YAML);
    const before = await databaseChecksum(server.database.sql);
    const dry = await cliAs('ada', ['policies', 'apply', '-f', file, '--prune', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^create\s+urn:li:dataHubPolicy:finance-stewards\s+Finance stewards edit values on finance datasets$/m);
    expect(dry.stdout).toMatch(/^\s+urn:li:corpGroup:finance-stewards gains EDIT_ENTITY_PROPERTIES$/m);
    expect(dry.stdout).toMatch(/^\s+urn:li:corpGroup:privacy gains EDIT_ENTITY_PROPERTIES$/m);
    expect(dry.stdout).toMatch(/^deactivate urn:li:dataHubPolicy:propgraph-default-write/m);
    expect(dry.stdout).toMatch(/^\s+everyone signed in loses EDIT_ENTITY, EDIT_ENTITY_PROPERTIES, SOFT_DELETE_ENTITY, MANAGE_STRUCTURED_PROPERTIES$/m);
    expect(dry.stderr).toMatch(/10 of 10 policies would change; nothing was written \(--dry-run\)\./);
    expect(await databaseChecksum(server.database.sql)).toBe(before);

    const applied = await cliAs('ada', ['policies', 'apply', '-f', file, '--prune']);
    expect([applied.code, applied.stderr]).toEqual([0, expect.stringMatching(/10 of 10 policies changed\./)]);
    const listed = await cliAs('ada', ['policies', 'list']);
    expect(listed.stdout).toMatch(/^urn:li:dataHubPolicy:finance-stewards\s+ACTIVE\s+METADATA\s+Finance stewards edit values on finance datasets/m);
    expect(listed.stdout).toMatch(/^urn:li:dataHubPolicy:propgraph-default-write\s+INACTIVE/m);
  }, 120_000);

  test('the finance steward signs in at the provider and edits a finance dataset in the console; acme.pii is not theirs to edit', async () => {
    await page.goto(`${server.url}/entity/${encodeURIComponent(FIN)}`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.getByLabel('Username').fill(PEOPLE.fay.login);
    await page.getByLabel('Password').fill(PEOPLE.fay.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByText(PEOPLE.fay.email).first().waitFor();
    const values = page.getByRole('table', { name: 'Property values' });
    await values.getByRole('row', { name: /acme\.pii/ }).getByText('Not yours to edit').waitFor();
    expect(await values.getByRole('button', { name: 'Edit acme.pii' }).count()).toBe(0);
    await values.getByRole('button', { name: 'Edit acme.tier' }).click();
    await values.getByLabel('Value', { exact: true }).fill('gold');
    await values.getByRole('button', { name: 'Save acme.tier' }).click();
    await waitFor('the console to save acme.tier', 30_000, async () => ((await valuesOf(FIN))['acme.tier']?.[0] === 'gold' ? true : undefined));
    await values.getByRole('row', { name: /acme\.tier/ }).getByText('gold').waitFor();
    await shot('25-policies-steward-finance');
  }, 120_000);

  test('on a marketing dataset nothing is offered, and what a request asks anyway is refused naming the privilege, changing nothing', async () => {
    await page.goto(`${server.url}/entity/${encodeURIComponent(MKT)}`);
    const values = page.getByRole('table', { name: 'Property values' });
    await values.getByRole('row', { name: /acme\.tier/ }).waitFor();
    expect(await values.getByRole('button', { name: /^Edit / }).count()).toBe(0);
    await shot('26-policies-steward-marketing');
    const before = await databaseChecksum(server.database.sql);
    /** A GraphQL write from the page, with the steward's session, as the console would send it. */
    const fromThePage = (urn: string, qn: string) =>
      page.evaluate(
        async ([u, p]) => {
          const query = 'mutation m($a: String!, $p: String!) { upsertStructuredProperties(input: {assetUrn: $a, structuredPropertyInputParams: [{structuredPropertyUrn: $p, values: [{stringValue: "x"}]}]}) { properties { associatedUrn } } }';
          const res = await fetch('/api/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: { a: u, p } }) });
          return (await res.json()) as { errors?: Array<{ message: string; extensions: { code: string; reason: string } }> };
        },
        [urn, property(qn)] as const,
      );
    for (const [urn, qn] of [[MKT, 'acme.tier'], [FIN, 'acme.pii']] as const) {
      const answer = await fromThePage(urn, qn);
      expect(answer.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'MISSING_PRIVILEGE' });
      expect(answer.errors?.[0]?.message).toMatch(new RegExp(`^Changing the values of ${qn.replace('.', '\\.')} on .* needs the EDIT_ENTITY_PROPERTIES privilege`));
    }
    // The same over REST, with the steward's CLI session: 403 naming the privilege, the entity and the property.
    const { token } = JSON.parse(readFileSync(`${homes.fay}/.propgraph/config.json`, 'utf8')) as { token: string };
    const rest = await http(server.url, 'POST', `${V3}/entity/dataset/${enc(MKT)}/structuredProperties`, {
      query: { createIfNotExists: 'false' },
      json: { value: { properties: [{ propertyUrn: property('acme.domain'), values: [{ string: 'marketing' }] }, { propertyUrn: property('acme.tier'), values: [{ string: 'x' }] }] } },
      headers: { authorization: `Bearer ${token}` },
    });
    expect([rest.status, rest.body?.details]).toEqual([403, expect.objectContaining({ privilege: 'EDIT_ENTITY_PROPERTIES', resource: MKT, property: property('acme.tier') })]);
    expect(await databaseChecksum(server.database.sql)).toBe(before);
  }, 120_000);

  test('their bulk edit over both datasets changes the finance one and reports the marketing one with the reason', async () => {
    await page.goto(`${server.url}/search?q=${encodeURIComponent('name:walk')}`);
    await page.getByRole('button', { name: 'Select all 2 matching' }).click();
    const panel = page.getByRole('region', { name: 'Edit all 2 results matching this search' });
    await panel.getByLabel('Property', { exact: true }).selectOption({ label: 'acme.tier' });
    await panel.getByLabel('Value', { exact: true }).fill('silver');
    await panel.getByRole('button', { name: 'Preview the change' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'acme.tier: 1 entity changes, 0 unchanged, 1 refused' }).waitFor({ timeout: 60_000 });
    await dialog.getByText(/needs the EDIT_ENTITY_PROPERTIES privilege/).waitFor();
    await shot('27-policies-bulk-edit-preview');
    await dialog.getByRole('button', { name: 'Apply to 1 entity' }).click();
    await page.getByRole('status').filter({ hasText: 'Done: 1 changed, 0 unchanged, 1 refused.' }).waitFor({ timeout: 120_000 });
    await shot('28-policies-bulk-edit-outcome');
    const refused = await page.getByRole('table', { name: '1 entity left as it was, with the reason' }).locator('tbody tr').allInnerTexts();
    expect(refused).toEqual([expect.stringMatching(new RegExp(`walk\\.mkt\\.leads[\\s\\S]*needs the EDIT_ENTITY_PROPERTIES privilege`))]);
    expect([(await valuesOf(FIN))['acme.tier'], (await valuesOf(MKT))['acme.tier']]).toEqual([['silver'], undefined]);
    expect(browser.pageErrors).toEqual([]);
  }, 180_000);

  test('the Policies page shows what each policy covers, and answers who could edit acme.pii here and why the steward may not', async () => {
    await page.goto(`${server.url}/policies`);
    await page.getByRole('heading', { level: 1, name: 'Policies' }).waitFor();
    const row = page.getByRole('row', { name: /Finance stewards edit values on finance datasets/ });
    await row.getByText(/every property but acme\.pii/).waitFor();
    expect(await page.getByRole('button', { name: /^(Edit|Turn off|Delete) / }).count()).toBe(0);
    await page.getByLabel('Privilege').selectOption('EDIT_ENTITY_PROPERTIES');
    await page.getByLabel('Entity urn').fill(FIN);
    await page.getByLabel('Property (for values and definitions)').fill('acme.pii');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByText('urn:li:corpGroup:privacy (by Only privacy edits acme.pii)').waitFor();
    await page.getByText(/^urn:li:corpuser:fay@example\.com may not EDIT_ENTITY_PROPERTIES on .* for urn:li:structuredProperty:acme\.pii/).waitFor();
    await page.getByText('Not by Finance stewards edit values on finance datasets: it covers every property but acme.pii, not acme.pii').waitFor();
    await shot('29-policies-who-could-and-why');
    expect(browser.pageErrors).toEqual([]);
    expect(browser.cspViolations).toEqual([]);
  }, 120_000);

  test('propgraph access explain says why: the marketing dataset is not finance, and acme.pii is left out of their policy', async () => {
    const mkt = await cliAs('fay', ['access', 'explain', '--privilege', 'EDIT_ENTITY_PROPERTIES', '--urn', MKT, '--property', 'acme.tier']);
    expect(mkt.code).toBe(1);
    expect(mkt.stdout).toMatch(/^urn:li:corpuser:fay@example.com may not EDIT_ENTITY_PROPERTIES on /m);
    expect(mkt.stdout).toMatch(/not by urn:li:dataHubPolicy:finance-stewards \(Finance stewards edit values on finance datasets\): .*does not match its resources \(structuredProperties\.acme\.domain in finance\)/);
    const pii = await cliAs('fay', ['access', 'explain', '--privilege', 'EDIT_ENTITY_PROPERTIES', '--urn', FIN, '--property', 'acme.pii']);
    expect(pii.code).toBe(1);
    expect(pii.stdout).toMatch(/not by urn:li:dataHubPolicy:finance-stewards .*: it covers every property but acme\.pii, not acme\.pii/);
    expect(pii.stdout).toMatch(/not by urn:li:dataHubPolicy:privacy-pii .*: its actors do not include urn:li:corpuser:fay@example.com/);
    const tier = await cliAs('fay', ['access', 'explain', '--privilege', 'EDIT_ENTITY_PROPERTIES', '--urn', FIN, '--property', 'acme.tier']);
    expect([tier.code, tier.stdout]).toEqual([0, expect.stringMatching(/granted by urn:li:dataHubPolicy:finance-stewards/)]);
  }, 120_000);
});
