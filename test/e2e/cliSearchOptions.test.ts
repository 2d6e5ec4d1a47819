/**
 * `propgraph search`, `dataset list` and `restore` end to end: the built CLI as a
 * subprocess against a real server with a real Meilisearch (issue #15, item 6).
 */
import { rmSync } from 'node:fs';
import { startTestServer, type TestServer } from '../support/server.js';
import { ensureCliBuilt, runCli, tempDir, writeFile, type CliResult } from './cliRunner.js';

let server: TestServer;
let home: string;

const PROPERTIES = `- id: acme.tier
  type: string
  display_name: Tier
  entity_types: [dataset]
  allowed_values: [{value: gold}, {value: silver}]
- id: acme.rows
  type: number
  entity_types: [dataset]
`;

const DATASETS = `- id: sales.invoices
  platform: bigquery
  structured_properties: {acme.tier: gold, acme.rows: 120}
- id: sales.orders
  platform: bigquery
  structured_properties: {acme.tier: silver}
- id: finance.invoices_archive
  platform: hive
  structured_properties: {acme.tier: gold}
- id: web.clicks
  platform: hive
`;

const urnOf = (platform: string, name: string) => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`;
const cli = (args: string[]): Promise<CliResult> => runCli(args, { home, server: server.url });

beforeAll(async () => {
  await ensureCliBuilt();
  server = await startTestServer({ search: true });
  home = tempDir();
  expect((await cli(['properties', 'upsert', '-f', writeFile(home, 'p.yaml', PROPERTIES)])).code).toBe(0);
  expect((await cli(['dataset', 'upsert', '-f', writeFile(home, 'd.yaml', DATASETS)])).code).toBe(0);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('propgraph search', () => {
  it('finds datasets by a keyword and shows them as a table', async () => {
    const res = await cli(['search', 'invoices']);
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines[0]).toBe('2 results for "invoices".');
    expect(lines[1]).toMatch(/^TYPE\s+NAME\s+PLATFORM\s+URN$/);
    expect(lines.slice(2).sort()).toEqual([
      expect.stringMatching(new RegExp(`^dataset\\s+finance\\.invoices_archive\\s+hive\\s+${escape(urnOf('hive', 'finance.invoices_archive'))}$`)),
      expect.stringMatching(new RegExp(`^dataset\\s+sales\\.invoices\\s+bigquery\\s+${escape(urnOf('bigquery', 'sales.invoices'))}$`)),
    ]);
  });

  it('--type and --filter narrow the hits; a property filter names the property by its qualified name', async () => {
    const res = await cli(['search', '--type', 'dataset', '--filter', 'platform=bigquery', '--filter', 'acme.tier=gold', '--json']);
    expect(res.code).toBe(0);
    const body = JSON.parse(res.stdout) as { total: number; results: Array<{ urn: string; type: string; platform: string }> };
    expect(body.total).toBe(1);
    expect(body.results).toEqual([{ type: 'dataset', name: 'sales.invoices', platform: 'bigquery', urn: urnOf('bigquery', 'sales.invoices') }]);
  });

  it('repeated values of one field are alternatives', async () => {
    const res = await cli(['search', '--filter', 'acme.tier=gold', '--filter', 'acme.tier=silver', '--json']);
    expect(JSON.parse(res.stdout).total).toBe(3);
  });

  it('--facet counts hits per value, with the facet shown by its display name', async () => {
    const res = await cli(['search', '--type', 'dataset', '--facet', 'acme.tier', '--facet', 'platform']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('4 results.');
    expect(res.stdout).toMatch(/Tier \(structuredProperties\.acme\.tier\):\n {2}gold\s+2\n {2}silver\s+1\n/);
    expect(res.stdout).toMatch(/\(platform\):\n {2}urn:li:dataPlatform:(bigquery|hive)\s+2\n {2}urn:li:dataPlatform:(bigquery|hive)\s+2\n/);
    const json = JSON.parse((await cli(['search', '--facet', 'acme.tier', '--json'])).stdout);
    expect(json.facets[0]).toMatchObject({ field: 'structuredProperties.acme.tier', displayName: 'Tier' });
  });

  it('--count limits the hits and says how many there are', async () => {
    const res = await cli(['search', '--count', '1']);
    expect(res.stdout.split('\n')[0]).toBe('4 results, showing the first 1 (--count for more).');
  });

  it("--sort orders by a property's value, ascending or with :desc, entities without one last; the same order through REST's sort", async () => {
    const names = async (args: string[]) => (JSON.parse((await cli(['search', '--type', 'dataset', ...args, '--json'])).stdout).results as Array<{ name: string }>).map((r) => r.name);
    // Ties (the two golds) by URN: bigquery's before hive's.
    expect(await names(['--sort', 'acme.tier'])).toEqual(['sales.invoices', 'finance.invoices_archive', 'sales.orders', 'web.clicks']);
    expect(await names(['--sort', 'acme.tier:desc'])).toEqual(['sales.orders', 'sales.invoices', 'finance.invoices_archive', 'web.clicks']);
    expect((await names(['--sort', 'name:desc']))[0]).toBe('web.clicks');
    const rest = await fetch(`${server.url}/openapi/v3/entity/dataset?sort=structuredProperties.acme.rows&sortOrder=DESCENDING&count=2`);
    expect(((await rest.json()) as { entities: Array<{ urn: string }> }).entities[0]!.urn).toBe(urnOf('bigquery', 'sales.invoices'));
  });

  it('--sort on a field that is no sort field or property is refused by the server naming the fields (exit 1)', async () => {
    const res = await cli(['search', '--sort', 'colour:desc']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/structuredProperties\.colour/);
  });

  it('a misspelt property is refused with the closest name (exit 1)', async () => {
    const res = await cli(['search', '--filter', 'acme.tir=gold']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/acme\.tir.*closest existing one is structuredProperties\.acme\.tier/);
  });

  it('a bad --filter, --type or --count is a usage error (exit 2)', async () => {
    const filter = await cli(['search', '--filter', 'platform']);
    expect(filter.code).toBe(2);
    expect(filter.stderr).toMatch(/--filter platform: expected field=value/);
    const type = await cli(['search', '--type', 'tset']);
    expect(type.code).toBe(2);
    expect(type.stderr).toMatch(/--type tset: not a searchable entity type; use one of .*dataset/);
    // --count 0 is a facets-only search (cliSteward.test.ts); a negative or non-numeric count is refused.
    const count = await cli(['search', '--count', '-1']);
    expect(count.code).toBe(2);
    expect(count.stderr).toMatch(/--count/);
    expect((await cli(['search', '--count', 'ten'])).code).toBe(2);
  });
});

describe('propgraph dataset list and restore', () => {
  it('lists every dataset urn; a soft delete names the restore command, which brings the dataset back', async () => {
    const listed = await cli(['dataset', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split('\n').sort()).toEqual(
      [urnOf('bigquery', 'sales.invoices'), urnOf('bigquery', 'sales.orders'), urnOf('hive', 'finance.invoices_archive'), urnOf('hive', 'web.clicks')].sort(),
    );

    const urn = urnOf('hive', 'web.clicks');
    const deleted = await cli(['delete', '--urn', urn]);
    expect(deleted.stdout).toBe(`Soft deleted ${urn}. Nothing was removed; restore it with: propgraph restore --urn '${urn}'\n`);
    expect((await cli(['dataset', 'list'])).stdout).not.toContain(urn);

    const restored = await cli(['restore', '--urn', urn]);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toBe(`Restored ${urn}.\n`);
    expect((await cli(['dataset', 'list'])).stdout).toContain(urn);
    expect((await cli(['restore', '--urn', urn])).stdout).toBe(`${urn} is not deleted; nothing to restore.\n`);
  });

  it('properties list and get mark a soft-deleted property, as dataset get marks a dataset', async () => {
    const urn = 'urn:li:structuredProperty:acme.rows';
    expect((await cli(['delete', '--urn', urn])).code).toBe(0);
    try {
      const listed = await cli(['properties', 'list']);
      expect(listed.stdout.trim().split('\n').sort()).toEqual([`${urn} (soft deleted)`, 'urn:li:structuredProperty:acme.tier']);
      const details = JSON.parse((await cli(['properties', 'list', '--details'])).stdout) as Array<{ urn: string; removed?: boolean }>;
      expect(details.find((d) => d.urn === urn)?.removed).toBe(true);
      expect(details.find((d) => d.urn !== urn)?.removed).toBeUndefined();
      expect(JSON.parse((await cli(['properties', 'get', '--urn', 'acme.rows'])).stdout)).toMatchObject({ urn, removed: true });
    } finally {
      expect((await cli(['restore', '--urn', urn])).stdout).toBe(`Restored ${urn}.\n`);
    }
    expect((await cli(['properties', 'list'])).stdout).not.toContain('soft deleted');
    expect(JSON.parse((await cli(['properties', 'get', '--urn', 'acme.rows'])).stdout).removed).toBeUndefined();
  });

  it('restoring what does not exist says so (exit 1)', async () => {
    const res = await cli(['restore', '--urn', urnOf('hive', 'never.there')]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/does not exist/);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
