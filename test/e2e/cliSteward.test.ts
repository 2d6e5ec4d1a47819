/**
 * The CLI as the steward found it (issue #27 items 2, 4, 5), the built CLI as a
 * subprocess against a real server with search: `demo load` leaves values of other
 * properties alone; put-like commands say whether they merge or replace; a hard delete
 * says what it would remove; `values remove`; the property's history across entities;
 * no EPIPE when the reader goes away; `--count 0` and paging past 1,000; `--profile`;
 * shell completion.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { enc, http } from '../support/http.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { cliMain, ensureCliBuilt, runCli, tempDir, writeFile, type CliResult } from './cliRunner.js';

const DEMO_DATASET = 'urn:li:dataset:(urn:li:dataPlatform:bigquery,marketing.invoices,PROD)';
const MINE = 'urn:li:structuredProperty:steward.reviewed';

(searchAvailableForTests() ? describe : describe.skip)('the CLI as a steward found it', () => {
  let server: TestServer;
  let home: string;
  const cli = (args: string[], input?: string): Promise<CliResult> => runCli(args, { home, server: server.url, ...(input !== undefined ? { input } : {}) });

  beforeAll(async () => {
    await ensureCliBuilt();
    server = await startTestServer({ search: true });
    home = tempDir('propgraph-steward-cli-');
    expect((await cli(['demo', 'load'])).code).toBe(0);
    const defined = await cli(['properties', 'upsert', '-f', writeFile(home, 'mine.yaml', '- id: steward.reviewed\n  type: string\n  cardinality: MULTIPLE\n  entity_types: [dataset]\n')]);
    expect(defined.code).toBe(0);
    // More datasets than one page holds, for paging past 1,000.
    for (let batch = 0; batch < 2; batch++) {
      const urns = Array.from({ length: 550 }, (_, i) => `urn:li:dataset:(urn:li:dataPlatform:hive,paging.d${batch}_${i},PROD)`);
      expect((await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: urns.map((urn) => ({ urn, status: { value: { removed: false } } })) })).status).toBe(200);
    }
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test('demo load sets only the demo’s properties: a value of any other property stays', async () => {
    const set = await http(server.url, 'PATCH', `/openapi/v3/entity/dataset/${enc(DEMO_DATASET)}/structuredProperties`, {
      json: [{ op: 'add', path: `/properties/${MINE}`, value: { propertyUrn: MINE, values: [{ string: 'by-sam' }] } }],
    });
    expect(set.status).toBe(200);
    expect((await cli(['demo', 'load'])).code).toBe(0);
    const got = JSON.parse((await cli(['dataset', 'get', '--urn', DEMO_DATASET])).stdout);
    expect(got.structured_properties['steward.reviewed']).toBe('by-sam');
    expect(Object.keys(got.structured_properties).some((k) => k.startsWith('acme.'))).toBe(true);
  }, 300_000);

  test('put-like commands say whether they merge or replace', async () => {
    const help = async (args: string[]) => (await cli([...args, '--help'])).stdout.replace(/\s+/g, ' ');
    expect(await help(['dataset', 'upsert'])).toContain('merges: properties the file does not name are kept');
    expect(await help(['dataset', 'upsert'])).toContain('--replace');
    expect(await help(['properties', 'upsert'])).toContain("each definition is replaced by the file's");
    expect(await help(['tests', 'upsert'])).toContain("each test is replaced by the file's");
    expect(await help(['values', 'set'])).toContain('its other properties are kept');
    expect(await help(['values', 'import'])).toContain('other properties kept');
  });

  test('delete --hard --dry-run says what it would remove, and the confirmation says it too', async () => {
    const dry = await cli(['delete', '--urn', MINE, '--hard', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(`A hard delete of ${MINE} would remove 1 value on 1 entity (dataset: 1). Nothing was deleted (dry run).\n`);
    const asked = await cli(['delete', '--urn', MINE, '--hard'], 'n\n');
    expect(asked.stderr).toContain('remove its values from every entity that holds them (1 value on 1 entity (dataset: 1))');
    expect((await http(server.url, 'GET', `/openapi/v3/entity/structuredProperty/${enc(MINE)}`)).status).toBe(200);
  });

  test("values remove takes a value (or the property) off the selected entities; history --property lists a property's changes everywhere", async () => {
    const removed = await cli(['values', 'remove', '--urn', DEMO_DATASET, '--property', 'steward.reviewed=by-sam']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(/Bulk edit job \d+: 1\/1 entities\nBulk edit done \(job \d+\): 1 changed, 0 unchanged, 0 refused\./);
    const history = await cli(['history', '--property', 'steward.reviewed']);
    expect(history.code).toBe(0);
    const lines = history.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^TIME\s+ACTOR\s+VIA\s+ENTITY\s+CHANGE$/);
    const escaped = DEMO_DATASET.replace(/[.()]/g, '\\$&');
    expect(lines[1]).toMatch(new RegExp(`\\scli\\s+${escaped}\\s+steward\\.reviewed: by-sam -> \\(none\\)$`));
    expect(lines[2]).toMatch(new RegExp(`\\srest-v3\\s+${escaped}\\s+steward\\.reviewed: \\(none\\) -> by-sam$`));
  });

  test('no EPIPE when the reader goes away: every command ends quietly', async () => {
    for (const args of [['properties', 'list'], ['dataset', 'list'], ['search', '--count', '300']]) {
      const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [cliMain, ...args], { env: { PATH: process.env.PATH ?? '', HOME: home, PROPGRAPH_SERVER: server.url }, stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        // As `| head -1` does: read the first line, then close the pipe.
        child.stdout.once('data', () => child.stdout.destroy());
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stderr }));
      });
      expect({ args, stderr: result.stderr }).toEqual({ args, stderr: '' });
      expect(result.code).toBe(0);
    }
  });

  test('search --count 0 gives the total and facets only; --count past 1,000 pages through', async () => {
    const total = await cli(['search', '--type', 'dataset', '--count', '0', '--facet', 'platform']);
    expect(total.code).toBe(0);
    const [first, ...rest] = total.stdout.split('\n');
    expect(first).toMatch(/^\d+ results\.$/);
    expect(rest.join('\n')).not.toContain('urn:li:dataset:');
    expect(total.stdout).toContain('Platform (platform):');
    const all = Number(/^(\d+)/.exec(first!)![1]);
    expect(all).toBeGreaterThan(1000);
    const paged = await cli(['search', '--type', 'dataset', '--count', String(all), '--json']);
    expect(paged.code).toBe(0);
    const results = (JSON.parse(paged.stdout) as { results: Array<{ urn: string }> }).results;
    expect(results).toHaveLength(all);
    expect(new Set(results.map((r) => r.urn)).size).toBe(all);
  }, 120_000);

  test('--profile picks a named server and token from the config file; init writes it beside the default', async () => {
    const own = tempDir('propgraph-profiles-');
    try {
      const withProfile = (args: string[]) => runCli(args, { home: own });
      expect((await withProfile(['init', '--server', 'http://127.0.0.1:9', '--no-check'])).code).toBe(0);
      const written = await withProfile(['--profile', 'lab', 'init', '--server', server.url, '--no-check']);
      expect(written.code).toBe(0);
      expect(written.stdout).toContain('(profile lab, server');
      const file = JSON.parse(readFileSync(path.join(own, '.propgraph', 'config.json'), 'utf8'));
      expect(file).toEqual({ server: 'http://127.0.0.1:9', profiles: { lab: { server: server.url } } });
      expect((await withProfile(['--profile', 'lab', 'properties', 'list'])).stdout).toContain(MINE);
      expect((await runCli(['properties', 'list'], { home: own, env: { PROPGRAPH_PROFILE: 'lab' } })).code).toBe(0);
      expect((await withProfile(['properties', 'list'])).code).toBe(3);
      const missing = await withProfile(['--profile', 'nope', 'properties', 'list']);
      expect(missing.code).toBe(3);
      expect(missing.stderr).toContain('No profile "nope"');
      expect(missing.stderr).toContain('(it has: lab)');
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  test('completion bash completes commands, subcommands and options; zsh loads it', async () => {
    const bash = await cli(['completion', 'bash']);
    expect(bash.code).toBe(0);
    const script = writeFile(home, 'completion.bash', bash.stdout);
    const complete = (words: string[]) =>
      new Promise<string>((resolve) => {
        const line = `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _propgraph; echo "\${COMPREPLY[*]}"`;
        const child = spawn('bash', ['-c', line]);
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', () => resolve(out.trim()));
      });
    expect(await complete(['propgraph', 'val'])).toBe('values');
    expect((await complete(['propgraph', 'values', ''])).split(' ')).toEqual(expect.arrayContaining(['set', 'add', 'remove', 'export', 'import']));
    expect(await complete(['propgraph', '--profile', 'lab', 'values', 'set', '--dr'])).toBe('--dry-run');
    expect(await complete(['propgraph', 'history', '--pro'])).toBe('--property');
    const zsh = await cli(['completion', 'zsh']);
    expect(zsh.stdout.startsWith('#compdef propgraph\n')).toBe(true);
    expect(zsh.stdout).toContain('bashcompinit');
    if (existsSync('/usr/bin/zsh')) expect(zsh.code).toBe(0);
    expect((await cli(['completion', 'fish'])).code).toBe(2);
  });
});
