/**
 * A data steward's afternoon (issue #27, "Done when"), walked as a person does it: the
 * built CLI as a subprocess and the web console in headless Chromium, against a real
 * server with authentication and search.
 *
 * 1. Two teams' files are upserted onto the same datasets; both teams' values remain.
 * 2. A bulk set over a search's 40 results runs with progress; its history names the actor.
 * 3. An export, edit and import round trip of values as CSV.
 * 4. A breaking change's dry run states the impact; then the change is applied.
 * 5. Version N of an aspect is read back through Rest.li and REST v3.
 * 6. In the console: facets combine, results are ticked for a bulk edit whose confirmation
 *    states the impact, the entity's timeline names who changed what, rich text renders
 *    without running what it carries, a link to a soft-deleted property says so once.
 *
 * Each step's time is printed at the end (the walk's timings).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ensureConsoleBuilt } from '../support/build.js';
import { enc, http } from '../support/http.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { ensureCliBuilt, runCli, tempDir, writeFile, type CliResult } from './cliRunner.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROOT = `pgt_walk_${Math.random().toString(36).slice(2)}`;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const admin = { authorization: `Bearer ${ROOT}` };

const hive = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,shop.t${String(i).padStart(2, '0')},PROD)`;
const kafka = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:kafka,events.s${i},PROD)`;
const HIVE = Array.from({ length: 40 }, (_, i) => hive(i));
const KAFKA = Array.from({ length: 5 }, (_, i) => kafka(i));
const P = (name: string) => `urn:li:structuredProperty:${name}`;

const PROPERTIES = (tierValues: string, version = '') => `- id: acme.tier
  type: string
  display_name: Tier
  entity_types: [dataset]
  allowed_values: [${tierValues}]
${version ? `  version: "${version}"\n` : ''}- id: acme.notes
  type: rich_text
  display_name: Notes
  entity_types: [dataset]
- id: acme.steward
  type: urn
  display_name: Steward
  entity_types: [dataset]
- id: northwind.owner
  type: string
  display_name: Owner
  entity_types: [dataset]
- id: northwind.retired
  type: string
  display_name: Retired
  entity_types: [dataset]
`;

const TEAM_A = [0, 1, 2].map((i) => `- urn: ${hive(i)}\n  structured_properties:\n    acme.tier: bronze\n    acme.steward: urn:li:corpuser:sam\n`).join('');
const TEAM_B = [0, 1, 2].map((i) => `- urn: ${hive(i)}\n  structured_properties:\n    northwind.owner: team-b\n`).join('');

const canRun = existsSync(CHROMIUM) && searchAvailableForTests();
const timings: Array<[string, number]> = [];

async function timed<T>(step: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    timings.push([step, Math.round(performance.now() - started)]);
  }
}

(canRun ? describe : describe.skip)("a data steward's afternoon", () => {
  let server: TestServer;
  let home: string;
  let samToken: string;
  let context: BrowserContext;
  let page: Page;
  const profile = mkdtempSync(path.join(tmpdir(), 'propgraph-walk-'));
  const pageErrors: string[] = [];

  const sam = (args: string[], input?: string): Promise<CliResult> => runCli(args, { home, server: server.url, token: samToken, ...(input !== undefined ? { input } : {}) });
  const lead = (args: string[]): Promise<CliResult> => runCli(args, { home, server: server.url, token: ROOT });
  const valuesOf = async (urn: string) => {
    const got = await sam(['dataset', 'get', '--urn', urn]);
    expect(got.code).toBe(0);
    return (JSON.parse(got.stdout) as { structured_properties?: Record<string, unknown> }).structured_properties ?? {};
  };

  beforeAll(async () => {
    await Promise.all([ensureCliBuilt(), ensureConsoleBuilt()]);
    server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, RATE_LIMIT_PER_MINUTE: '1000000' } });
    home = tempDir('propgraph-walk-home-');
    samToken = (await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'sam', scope: 'write' }, headers: admin })).body.accessToken;
    // What ingestion would have loaded: 40 datasets on hive, 5 on kafka.
    const loaded = await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: [...HIVE, ...KAFKA].map((urn) => ({ urn, status: { value: { removed: false } } })), headers: admin });
    expect(loaded.status).toBe(200);
    const defined = await sam(['properties', 'upsert', '-f', writeFile(home, 'props.yaml', PROPERTIES('{value: gold}, {value: silver}, {value: bronze}'))]);
    expect(defined.code).toBe(0);
  }, 300_000);

  afterAll(async () => {
    await context?.close();
    await server?.stop();
    rmSync(profile, { recursive: true, force: true });
    if (home) rmSync(home, { recursive: true, force: true });
    const width = Math.max(...timings.map(([s]) => s.length));
    console.log(`The steward's afternoon, step by step:\n${timings.map(([s, ms]) => `  ${s.padEnd(width)}  ${String(ms).padStart(6)} ms`).join('\n')}\n  ${'total'.padEnd(width)}  ${String(timings.reduce((n, [, ms]) => n + ms, 0)).padStart(6)} ms`);
  });

  test('1. two teams upsert their files onto the same datasets, and both teams’ values remain', async () => {
    await timed('1 two teams upsert onto the same datasets', async () => {
      const a = await sam(['dataset', 'upsert', '-f', writeFile(home, 'team-a.yaml', TEAM_A)]);
      expect(a.code).toBe(0);
      expect(a.stdout).toContain('3 written, 0 failed, merged: properties the file does not name were kept');
      const dry = await sam(['dataset', 'upsert', '-f', writeFile(home, 'team-b.yaml', TEAM_B), '--dry-run']);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain(`${hive(0)}\n  northwind.owner: (none) -> team-b\n`);
      expect(dry.stdout).toContain('3 datasets are valid; 0 would be created, 3 updated and 0 left as they are; 3 properties would change on 3 of 3 entities (merge: properties the file does not name are kept). Nothing was written (dry run).');
      expect(dry.stdout).not.toContain('acme.tier');
      const b = await sam(['dataset', 'upsert', '-f', path.join(home, 'team-b.yaml')]);
      expect(b.code).toBe(0);
      for (const i of [0, 1, 2]) expect(await valuesOf(hive(i))).toEqual({ 'acme.tier': 'bronze', 'acme.steward': 'urn:li:corpuser:sam', 'northwind.owner': 'team-b' });
    });
  });

  test("2. a bulk set over a search's 40 results runs with progress, and its history names the actor", async () => {
    await timed("2 bulk set over a search's 40 results", async () => {
      const dry = await sam(['values', 'set', '--query', 'platform:hive', '--property', 'acme.tier=gold', '--dry-run']);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain(`${hive(0)}\n  acme.tier: bronze -> gold\n`);
      expect(dry.stdout).toContain('Dry run: set acme.tier = gold on 40 entities: 40 would change');
      const run = await sam(['values', 'set', '--query', 'platform:hive', '--property', 'acme.tier=gold']);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Setting acme\.tier = gold on 40 entities \(job \d+\); other properties are kept\.$/m);
      // Off a terminal, one line per count seen; the last is the whole count, however soon the job ended.
      expect(run.stdout).toMatch(/Bulk edit job \d+: 40\/40 entities\nBulk edit done/);
      expect(run.stdout).toMatch(/Bulk edit done \(job \d+\): 40 changed, 0 unchanged, 0 refused\./);
      for (const urn of [hive(0), hive(39)]) expect((await valuesOf(urn))['acme.tier']).toBe('gold');
      expect((await valuesOf(kafka(0)))['acme.tier']).toBeUndefined();
      expect((await valuesOf(hive(1)))['northwind.owner']).toBe('team-b');
      const history = await sam(['history', '--urn', hive(1), '--property', 'acme.tier']);
      expect(history.code).toBe(0);
      const lines = history.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^TIME\s+ACTOR\s+VIA\s+CHANGE$/);
      expect(lines[1]).toMatch(/urn:li:corpuser:__service_sam\s+cli\s+acme\.tier: bronze -> gold$/);
      expect(lines[2]).toMatch(/urn:li:corpuser:__service_sam\s+cli\s+acme\.tier: \(none\) -> bronze$/);
    });
  });

  test('3. an export, edit and import round trip', async () => {
    await timed('3 export, edit, import', async () => {
      const exported = await sam(['values', 'export', '--property', 'acme.tier', '--property', 'northwind.owner', '--query', 'platform:hive']);
      expect(exported.code).toBe(0);
      const lines = exported.stdout.trim().split('\n');
      // Context columns for the spreadsheet, which the import reads past (issue #41).
      expect(lines[0]).toBe('urn,name,platform,environment,description,acme.tier,northwind.owner');
      expect(lines).toHaveLength(41);
      expect(lines).toContain(`"${hive(0)}",shop.t00,hive,PROD,,gold,team-b`);
      const context = (i: number) => `"${hive(i)}",shop.t${String(i).padStart(2, '0')},hive,PROD,edited in a spreadsheet`;
      const edited = lines.map((l) => (l.startsWith(`"${hive(0)}"`) ? `${context(0)},silver,team-b` : l.startsWith(`"${hive(1)}"`) ? `${context(1)},gold,` : l.startsWith(`"${hive(9)}"`) ? `${context(9)},gold,team-c` : l));
      const file = writeFile(home, 'values.csv', `${edited.join('\n')}\n`);
      const missing = hive(99);
      const bad = await sam(['values', 'import', '-f', writeFile(home, 'bad.csv', `urn,acme.tier\n"${hive(3)}",platinum\nnot-a-urn,gold\n"${missing}",gold\n`)]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`bad.csv:2: ${hive(3)}: acme.tier: Property: ${P('acme.tier')}, value: {string=platinum} should be one of`);
      expect(bad.stderr).toContain("bad.csv:3: urn: 'not-a-urn' is not a valid urn");
      // The unknown URN in the same pass as the others (issue #39: it showed up only once they were fixed).
      expect(bad.stderr).toContain(`bad.csv:4: ${missing}: does not exist; values are set on existing entities only`);
      expect(bad.stderr).toContain('3 errors in');
      const dry = await sam(['values', 'import', '-f', file, '--dry-run']);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain(`${hive(0)}\n  acme.tier: gold -> silver\n`);
      expect(dry.stdout).toContain(`${hive(1)}\n  northwind.owner: team-b -> (none)\n`);
      expect(dry.stdout).toContain('3 properties would change on 3 of 40 entities');
      const imported = await sam(['values', 'import', '-f', file]);
      expect(imported.code).toBe(0);
      expect(imported.stdout).toContain('3 entities updated, 37 unchanged, in one transaction');
      expect(await valuesOf(hive(0))).toEqual({ 'acme.tier': 'silver', 'acme.steward': 'urn:li:corpuser:sam', 'northwind.owner': 'team-b' });
      expect(await valuesOf(hive(1))).toEqual({ 'acme.tier': 'gold', 'acme.steward': 'urn:li:corpuser:sam' });
      expect((await valuesOf(hive(9)))['northwind.owner']).toBe('team-c');
    });
  });

  test("4. a breaking change's dry run states the impact, then the change is applied", async () => {
    await timed('4 breaking change: dry run, then applied', async () => {
      // No dataset holds bronze any more (steps 2 and 3): retiring it breaks no stored value, so it needs no version.
      const unused = await lead(['properties', 'upsert', '-f', writeFile(home, 'retire.yaml', PROPERTIES('{value: gold}, {value: silver}')), '--dry-run']);
      expect(unused.stderr).toBe('');
      expect(unused.code).toBe(0);
      // Silver is held (hive 0, from the import): retiring it is refused, naming the holders and what a new version would drop.
      const withoutVersion = await lead(['properties', 'upsert', '-f', writeFile(home, 'breaking.yaml', PROPERTIES('{value: gold}')), '--dry-run']);
      expect(withoutVersion.code).toBe(2);
      expect(withoutVersion.stderr).toContain('allowed value "silver" is removed (1 entity holds values it breaks)');
      expect(withoutVersion.stderr).toContain('A new version hides at once, and then removes, the 40 values on 40 entities (dataset: 40) the property holds now.');
      // A new version instead (retiring bronze, keeping silver): it drops every value the property holds, as the seed says.
      const versioned = writeFile(home, 'versioned.yaml', PROPERTIES('{value: gold}, {value: silver}', '20270101000000'));
      const dry = await lead(['properties', 'upsert', '-f', versioned, '--dry-run']);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain(`${P('acme.tier')}: version 20270101000000 would drop 40 values on 40 entities (dataset: 40).`);
      expect((await valuesOf(hive(5)))['acme.tier']).toBe('gold');
      const applied = await lead(['properties', 'upsert', '-f', versioned]);
      expect(applied.code).toBe(0);
      expect((await valuesOf(hive(5)))['acme.tier']).toBeUndefined();
      expect((await valuesOf(hive(5)))).toEqual({});
      expect((await valuesOf(hive(0)))['northwind.owner']).toBe('team-b');
    });
  });

  test('5. version N of an aspect is read back through Rest.li and REST v3', async () => {
    await timed('5 version N via Rest.li and v3', async () => {
      // Team A's write, the first: its tier value is gone from it too, dropped by the new version in step 4 (hard means gone).
      const first = { properties: [{ propertyUrn: P('acme.steward'), values: [{ string: 'urn:li:corpuser:sam' }] }] };
      const restli = await http(server.url, 'GET', `/gms/aspects/${enc(hive(2))}`, { query: { aspect: 'structuredProperties', version: '1' }, headers: admin });
      expect(restli.status).toBe(200);
      expect(restli.body).toEqual({ version: 1, aspect: { 'com.linkedin.structured.StructuredProperties': first } });
      const v3 = await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(hive(2))}/structuredProperties`, { query: { version: '1', systemMetadata: 'true' }, headers: admin });
      expect(v3.status).toBe(200);
      expect(v3.body.structuredProperties.value).toEqual(first);
      expect(v3.body.structuredProperties.systemMetadata.version).toBe('1');
      const second = await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(hive(2))}/structuredProperties`, { query: { version: '2' }, headers: admin });
      expect(second.body.structuredProperties.value.properties.map((p: { propertyUrn: string }) => p.propertyUrn)).toEqual([P('acme.steward'), P('northwind.owner')]);
    });
  });

  describe('6. in the console', () => {
    beforeAll(async () => {
      // Values the console shows: rich text carrying what must never run, a URN, a property soft deleted later.
      const notes = '**Reviewed** by the steward.\n\n<img src=x onerror="window.__xss=1"> <script>window.__xss=2</script> [click](javascript:window.__xss=3)';
      const set = await http(server.url, 'PATCH', '/openapi/v3/entity/dataset', {
        json: [{ urn: kafka(0), structuredProperties: { value: { patch: [
          { op: 'add', path: `/properties/${P('acme.notes')}`, value: { propertyUrn: P('acme.notes'), values: [{ string: notes }] } },
          { op: 'add', path: `/properties/${P('acme.steward')}`, value: { propertyUrn: P('acme.steward'), values: [{ string: 'urn:li:corpuser:sam' }] } },
          { op: 'add', path: `/properties/${P('northwind.retired')}`, value: { propertyUrn: P('northwind.retired'), values: [{ string: 'yes' }] } },
        ] } } }],
        headers: admin,
      });
      expect(set.status).toBe(200);
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        viewport: { width: 1360, height: 1000 },
      });
      page = context.pages()[0] ?? (await context.newPage());
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(`${server.url}/properties`);
      await page.getByLabel('Access token').fill(samToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Properties' }).waitFor();
    }, 120_000);

    async function seriousViolations(): Promise<string[]> {
      await page.evaluate(AXE);
      return (await page.evaluate(
        "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))",
      )) as string[];
    }

    test('facets: values of one facet are alternatives, and a ticked facet keeps the counts of its other values', async () => {
      await timed('6a console facets', async () => {
        await page.goto(`${server.url}/search?type=dataset`);
        const platforms = page.getByRole('group', { name: 'Platform' });
        await platforms.getByLabel(/hive \(40\)/).check();
        await page.getByRole('status').filter({ hasText: '40 results' }).waitFor();
        await platforms.getByLabel(/kafka \(5\)/).waitFor();
        await platforms.getByLabel(/kafka \(5\)/).check();
        await page.getByRole('status').filter({ hasText: '45 results' }).waitFor();
        expect(await seriousViolations()).toEqual([]);
      });
    });

    test('ticked results are bulk edited after a confirmation that states the impact', async () => {
      await timed('6b console bulk edit of ticked results', async () => {
        await page.goto(`${server.url}/search?platform=${enc('urn:li:dataPlatform:kafka')}`);
        await page.getByRole('status').filter({ hasText: '5 results' }).waitFor();
        await page.getByLabel(/Select all shown/).check();
        const panel = page.getByRole('region', { name: /Edit 5 selected entities/ });
        await panel.getByLabel('Property').selectOption({ label: 'Tier' });
        await panel.getByLabel('Value').selectOption('silver');
        await panel.getByRole('button', { name: 'Preview the change' }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByRole('heading', { name: 'Tier: 5 entities change, 0 unchanged, 0 refused' }).waitFor();
        await dialog.getByRole('button', { name: 'Apply to 5 entities' }).click();
        await page.getByRole('status').filter({ hasText: 'Done: 5 changed, 0 unchanged, 0 refused.' }).waitFor();
        expect((await valuesOf(kafka(3)))['acme.tier']).toBe('silver');
      });
    });

    test("the entity's page: its timeline names who changed what; rich text renders and nothing in it runs; URN values link", async () => {
      await timed('6c console entity page, timeline, rich text', async () => {
        await page.goto(`${server.url}/entity/${enc(kafka(0))}`);
        const timeline = page.getByRole('region', { name: 'History of values' });
        await timeline.getByText('Tier: no value → silver').waitFor();
        expect(await timeline.locator('ol.timeline > li', { hasText: 'Tier: no value → silver' }).first().innerText()).toMatch(/urn:li:corpuser:__service_sam \(machine token\) · via console/);
        const notes = page.locator('tr[data-property="acme.notes"] .rich-text');
        await notes.locator('strong', { hasText: 'Reviewed' }).waitFor();
        expect(await notes.locator('img, script').count()).toBe(0);
        expect(await notes.innerText()).toContain('<img src=x onerror="window.__xss=1">');
        expect(await notes.locator('a[href^="javascript"]').count()).toBe(0);
        expect(await page.evaluate('window.__xss')).toBeUndefined();
        expect(await page.locator('tr[data-property="acme.steward"] a.value').getAttribute('href')).toBe(`/entity/${enc('urn:li:corpuser:sam')}`);
        expect(await seriousViolations()).toEqual([]);
      });
    });

    test('a link that filters on a soft-deleted property says so once, and the page stays usable', async () => {
      await timed('6d console link to a soft-deleted property', async () => {
        expect((await lead(['delete', '--urn', P('northwind.retired')])).code).toBe(0);
        await page.goto(`${server.url}/search?${new URLSearchParams([['v:northwind.retired', 'yes']])}`);
        await page.getByRole('alert').filter({ hasText: 'northwind.retired, which is soft deleted' }).waitFor();
        await page.getByRole('status').filter({ hasText: /^\d+ results/ }).first().waitFor();
        expect(await page.getByRole('alert').count()).toBe(1);
        await page.getByRole('button', { name: 'Remove it from the address' }).click();
        await page.waitForURL(`${server.url}/search`);
        expect(pageErrors).toEqual([]);
      });
    });
  });
});

test('the walk runs where Chromium and Meilisearch are (as CI has them)', () => {
  if (process.env.CI === 'true') expect(canRun).toBe(true);
});
