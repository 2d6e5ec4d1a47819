/**
 * `propgraph demo load` end to end (issue #15, item 8): the built CLI as a subprocess
 * against a real server with a real Meilisearch. The demo is what the README's first
 * minute runs: after it, searches, facets and test evaluation show realistic answers.
 */
import { rmSync } from 'node:fs';
import { demoCatalogue } from '../../src/cli/demo/catalogue.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ensureCliBuilt, runCli, runCliOnTerminal, tempDir, type CliResult } from './cliRunner.js';
import { expectEvery } from '../support/nonEmpty.js';

let server: TestServer;
let home: string;
let firstLoad: CliResult;
const cli = (args: string[]): Promise<CliResult> => runCli(args, { home, server: server.url });
const INVOICES = 'urn:li:dataset:(urn:li:dataPlatform:bigquery,marketing.invoices,PROD)';
const catalogue = demoCatalogue();

beforeAll(async () => {
  await ensureCliBuilt();
  server = await startTestServer({ search: true });
  home = tempDir();
  firstLoad = await cli(['demo', 'load']);
}, 300_000);

afterAll(async () => {
  await server?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

test('the catalogue is a few hundred datasets, a dozen properties covering every value type and cardinality, two tests; generated the same every time', () => {
  expect(catalogue.datasets.length).toBeGreaterThanOrEqual(200);
  expect(catalogue.datasets.length).toBeLessThanOrEqual(500);
  expect(catalogue.properties.length).toBeGreaterThanOrEqual(12);
  expect(catalogue.tests).toHaveLength(2);
  const kinds = new Set(
    catalogue.properties.map((p) => {
      const d = p.aspects.propertyDefinition as { valueType: string; cardinality: string };
      return `${d.valueType.replace('urn:li:dataType:svc.', '')}/${d.cardinality}`;
    }),
  );
  for (const type of ['string', 'rich_text', 'number', 'date', 'urn']) for (const c of ['SINGLE', 'MULTIPLE']) expect(kinds).toContain(`${type}/${c}`);
  expect(demoCatalogue()).toEqual(catalogue);
});

test('without a terminal the load prints plain progress lines, then what to try', () => {
  expect(firstLoad.code).toBe(0);
  expect(firstLoad.stderr).toBe('');
  expect(firstLoad.stdout).not.toContain('\r');
  const lines = firstLoad.stdout.trim().split('\n');
  expect(lines).toContain(`Loaded ${catalogue.properties.length}/${catalogue.properties.length} structured properties`);
  expect(lines).toContain(`Loaded 50/${catalogue.datasets.length} datasets`);
  expect(lines).toContain(`Loaded ${catalogue.datasets.length}/${catalogue.datasets.length} datasets`);
  expect(lines).toContain('Loaded 2/2 metadata tests');
  expect(lines.slice(-4)).toEqual([
    `Demo catalogue loaded: ${catalogue.properties.length} structured properties, ${catalogue.datasets.length} datasets (${catalogue.schemaFieldCount} schema fields), 2 metadata tests. Try:`,
    '  propgraph search invoices',
    '  propgraph search --type dataset --filter platform=bigquery --facet acme.governance.tier',
    `  propgraph tests evaluate --urn '${INVOICES}'`,
  ]);
});

test('a keyword search finds the invoice tables of every team', async () => {
  const res = await cli(['search', 'invoices', '--json']);
  expect(res.code).toBe(0);
  const body = JSON.parse(res.stdout) as { total: number; results: Array<{ urn: string; name: string }> };
  const names = body.results.map((r) => r.name);
  expect(names).toEqual(expect.arrayContaining(['marketing.invoices', 'finance.invoices']));
  expectEvery(names, (n) => n.includes('invoices'));
});

test('a filtered search with a facet counts tiers over the BigQuery datasets', async () => {
  const res = await cli(['search', '--type', 'dataset', '--filter', 'platform=bigquery', '--facet', 'acme.governance.tier', '--json']);
  expect(res.code).toBe(0);
  const body = JSON.parse(res.stdout) as { total: number; results: Array<{ platform: string }>; facets: Array<{ displayName: string; aggregations: Array<{ value: string; count: number }> }> };
  const bigquery = catalogue.datasets.filter((d) => d.urn.includes('dataPlatform:bigquery')).length;
  expect(body.total).toBe(bigquery);
  expectEvery(body.results, (r) => r.platform === 'bigquery');
  expect(body.facets[0]!.displayName).toBe('Tier');
  expect(body.facets[0]!.aggregations.map((a) => a.value).sort()).toEqual(['bronze', 'gold', 'silver']);
  expect(body.facets[0]!.aggregations.reduce((n, a) => n + a.count, 0)).toBe(bigquery);
});

test('marketing.invoices fails both demo tests; most datasets pass them', async () => {
  const res = await cli(['tests', 'evaluate', '--urn', INVOICES]);
  expect(res.code).toBe(0);
  expect(res.stdout).toBe('FAIL urn:li:test:acme-production-data-has-an-owner\nFAIL urn:li:test:acme-retention-is-set\n0 passing, 2 failing.\n');
  const other = catalogue.datasets.find((d) => JSON.stringify(d.aspects).includes('acme.ownership.team') && JSON.stringify(d.aspects).includes('acme.privacy.retentionDays'))!;
  expect((await cli(['tests', 'evaluate', '--urn', other.urn])).stdout).toMatch(/2 passing, 0 failing\.\n$/);
});

test('loading again changes nothing', async () => {
  const before = await cli(['dataset', 'get', '--urn', INVOICES]);
  const again = await cli(['demo', 'load']);
  expect(again.code).toBe(0);
  // The same lines, but for how long the index took to catch up (a loaded machine may make it wait).
  const steady = (out: string) => out.split('\n').filter((l) => !l.startsWith('Waiting for the search index'));
  expect(steady(again.stdout)).toEqual(steady(firstLoad.stdout));
  expect((await cli(['dataset', 'get', '--urn', INVOICES])).stdout).toBe(before.stdout);
  const listed = await cli(['dataset', 'list']);
  expect(listed.stdout.trim().split('\n')).toHaveLength(catalogue.datasets.length);
  expect((await cli(['tests', 'list'])).stdout.trim().split('\n')).toHaveLength(2);
}, 300_000);

test('on a terminal the load draws a progress bar instead of the lines', async () => {
  const res = await runCliOnTerminal(['demo', 'load'], { home, server: server.url });
  if (res === undefined) return; // no util-linux `script` here: nothing to drive a terminal with
  expect(res.code).toBe(0);
  // `script` merges the streams: the bar is drawn on stderr, redrawn in place.
  expect(res.stdout).toMatch(/\r\u001b\[K\[#+-*\] \d+\/\d+ (structured properties|datasets)/);
  expect(res.stdout).not.toContain('Loaded 50/');
  expect(res.stdout).toContain('Demo catalogue loaded:');
}, 300_000);
