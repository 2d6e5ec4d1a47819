/**
 * The catalog of record at the CLI (issue #39; docs/contract.md §14), the built CLI as a
 * subprocess against a real server: a definition file that retires an unused allowed
 * value is accepted without a version; one that retires a used value is refused naming
 * its holders, and `properties migrate` keeps them (a dry run first, then the job,
 * followed); `values set --if-version` refuses a write over a change made since, saying
 * who made it; `history` tells the property's lifecycle; `dataset upsert -f` refuses
 * to write over a change made between its read and its write, and says so.
 */
import { rmSync } from 'node:fs';
import { enc, http } from '../support/http.js';
import { interceptingProxy } from '../support/interceptingProxy.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ensureCliBuilt, runCli, tempDir, writeFile, type CliResult } from './cliRunner.js';

const P = 'urn:li:structuredProperty:cor.cli.tier';
const dataset = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,cor.cli.d${i},PROD)`;
const definition = (allowed: number[]) => `- id: cor.cli.tier\n  type: number\n  entity_types: [dataset]\n  allowed_values:\n${allowed.map((n) => `    - value: ${n}\n`).join('')}`;

describe('the catalog of record at the CLI', () => {
  let server: TestServer;
  let home: string;
  const cli = (args: string[]): Promise<CliResult> => runCli(args, { home, server: server.url });
  const valuesOf = async (urn: string) => (await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(urn)}/structuredProperties`)).body.structuredProperties.value.properties;

  beforeAll(async () => {
    await ensureCliBuilt();
    server = await startTestServer();
    home = tempDir('propgraph-cor-cli-');
    expect((await cli(['properties', 'upsert', '-f', writeFile(home, 'v1.yaml', definition([1, 2, 3]))])).code).toBe(0);
    expect((await cli(['properties', 'upsert', '-f', writeFile(home, 'owner.yaml', '- id: cor.cli.owner\n  type: string\n  entity_types: [dataset]\n')])).code).toBe(0);
    const urns = [0, 1, 2].map(dataset);
    expect((await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: urns.map((urn, i) => ({ urn, status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: P, values: [{ double: i === 2 ? 1 : 2 }] }] } } })) })).status).toBe(200);
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test('retiring an allowed value no dataset holds is accepted without a version', async () => {
    const result = await cli(['properties', 'upsert', '-f', writeFile(home, 'v2.yaml', definition([1, 2]))]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(await valuesOf(dataset(0))).toEqual([{ propertyUrn: P, values: [{ double: 2 }] }]);
  });

  test('retiring a value datasets hold is refused naming the holders; properties migrate keeps them, with a dry run first and the job followed', async () => {
    const file = writeFile(home, 'v3.yaml', definition([1]));
    const refused = await cli(['properties', 'upsert', '-f', file]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/allowed value 2 is removed \(2 entities hold values it breaks\)/);

    const dry = await cli(['properties', 'migrate', '-f', file, '--remap', '2=1', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('remap 2 → 1: 2 values on 2 entities');
    expect(dry.stdout).toContain('nothing was written (dry run)');
    expect(await valuesOf(dataset(0))).toEqual([{ propertyUrn: P, values: [{ double: 2 }] }]);

    const applied = await cli(['properties', 'migrate', '-f', file, '--remap', '2=1']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/its values are migrated by job \d+/);
    expect(applied.stdout).toMatch(/Migration done \(job \d+\): 3 entities rewritten/);
    for (const i of [0, 1, 2]) expect(await valuesOf(dataset(i))).toEqual([{ propertyUrn: P, values: [{ double: 1 }] }]);

    const history = await cli(['history', '--property', 'cor.cli.tier']);
    expect(history.stdout).toMatch(/migration finished/);
    expect(history.stdout).toMatch(/migration started/);
    expect(history.stdout).toMatch(/migration +property: 2(\.0)? -> 1(\.0)?|migration .*2.* -> .*1/);
  });

  test('values set --if-version writes only over the version read, and says who changed what otherwise', async () => {
    const got = JSON.parse((await cli(['dataset', 'get', '--urn', dataset(0)])).stdout);
    const version = got.structured_properties_version as string;
    expect(version).toMatch(/^\d+$/);
    const first = await cli(['values', 'set', '--urn', dataset(0), '--property', 'cor.cli.owner=alice', '--if-version', version]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    // A second person who read the same version.
    const stale = await cli(['values', 'set', '--urn', dataset(0), '--property', 'cor.cli.owner=bob', '--if-version', version]);
    expect(stale.code).not.toBe(0);
    expect(stale.stderr).toMatch(new RegExp(`is at version \\d+, not ${version} as read`));
    expect(stale.stderr).toMatch(/Since then: urn:li:corpuser:\S+ at .* \(cli\)/);
    expect(stale.stderr).toMatch(/Changed: urn:li:structuredProperty:cor\.cli\.owner: \(none\) → alice/);
    expect(await valuesOf(dataset(0))).toEqual(expect.arrayContaining([{ propertyUrn: 'urn:li:structuredProperty:cor.cli.owner', values: [{ string: 'alice' }] }]));
  });

  test('dataset upsert -f refuses to write over a change made between its read and its write, names the dataset, and writes it when run again', async () => {
    const urn = dataset(7);
    const file = writeFile(
      home,
      'datasets.yaml',
      `- urn: "${urn}"\n  description: ours\n  structured_properties:\n    cor.cli.owner: carol\n- urn: "${dataset(8)}"\n  description: untouched\n`,
    );
    expect((await cli(['dataset', 'upsert', '-f', file])).code).toBe(0);
    const described = async (u: string) => (await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(u)}/datasetProperties`)).body.datasetProperties.value.description;
    expect(await described(urn)).toBe('ours');

    // Someone else edits the dataset after the CLI read it and before its write lands:
    // a proxy in front of the server makes that edit when the CLI's write arrives.
    const proxy = await interceptingProxy(server.url, async (request) => {
      if (request.method !== 'PATCH' || !request.url?.startsWith('/openapi/v3/entity/dataset')) return;
      const edited = await http(server.url, 'POST', `/openapi/v3/entity/dataset/${enc(urn)}/datasetProperties?createIfNotExists=false`, { json: { value: { description: "theirs" } } });
      if (edited.status !== 200) throw new Error(`the other person's edit failed: ${edited.status} ${JSON.stringify(edited.body)}`);
    });
    try {
      writeFile(home, 'datasets.yaml', `- urn: "${urn}"\n  description: ours again\n- urn: "${dataset(8)}"\n  description: untouched too\n`);
      const raced = await runCli(['dataset', 'upsert', '-f', file], { home, server: proxy.url });
      expect(raced.code).not.toBe(0);
      expect(raced.stderr).toMatch(new RegExp(`datasets\\.yaml:1: .*not written: .*datasetProperties`));
      expect(raced.stderr).toMatch(/Changed: description: "ours" → "theirs"\. Read it again.*, or send the new version to overwrite\. Nothing of this dataset was written: it changed after this run read it\. Run the command again/);
      // Theirs is kept; the other dataset, unchanged since the read, is written.
      expect(await described(urn)).toBe('theirs');
      expect(await described(dataset(8))).toBe('untouched too');
    } finally {
      await proxy.close();
    }

    const again = await cli(['dataset', 'upsert', '-f', file]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(await described(urn)).toBe('ours again');
  });
});

