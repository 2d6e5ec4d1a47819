/**
 * `propgraph tests upsert|get|list|evaluate` end to end: the built CLI as a subprocess
 * against a real server (issue #15, item 6).
 */
import { rmSync } from 'node:fs';
import { startTestServer, type TestServer } from '../support/server.js';
import { ensureCliBuilt, runCli, tempDir, writeFile, type CliResult } from './cliRunner.js';
import { SEED_DATASET_URN, SEED_DATASET_YAML, SEED_PROPERTIES_YAML } from './seedExamples.js';

let server: TestServer;
let home: string;
const cli = (args: string[]): Promise<CliResult> => runCli(args, { home, server: server.url });

const RETENTION = 'urn:li:structuredProperty:io.acryl.privacy.retentionTime';
const TESTS = `- id: retention-is-set
  name: Retention is set
  category: Governance
  description: Production datasets keep data for a known time
  definition:
    on: {types: [dataset]}
    rules:
      - property: structuredProperties.${RETENTION}
        operator: exists
- urn: urn:li:test:retention-is-long
  name: Retention is at least a year
  category: Governance
  definition: '{"on": {"types": ["dataset"]}, "rules": [{"property": "structuredProperties.${RETENTION}", "operator": "greater_than", "values": ["364"]}]}'
`;

beforeAll(async () => {
  await ensureCliBuilt();
  server = await startTestServer();
  home = tempDir();
  expect((await cli(['properties', 'upsert', '-f', writeFile(home, 'p.yaml', SEED_PROPERTIES_YAML)])).code).toBe(0);
  expect((await cli(['dataset', 'upsert', '-f', writeFile(home, 'd.yaml', SEED_DATASET_YAML)])).code).toBe(0);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

test('upsert creates tests, then updates them; list and get read them back', async () => {
  const file = writeFile(home, 'tests.yaml', TESTS);
  const created = await cli(['tests', 'upsert', '-f', file]);
  expect(created.code).toBe(0);
  expect(created.stdout).toBe('Created test urn:li:test:retention-is-set\nCreated test urn:li:test:retention-is-long\n2 written, 0 failed\n');
  const again = await cli(['tests', 'upsert', '-f', file]);
  expect(again.stdout).toBe('Updated test urn:li:test:retention-is-set\nUpdated test urn:li:test:retention-is-long\n2 written, 0 failed\n');

  const listed = await cli(['tests', 'list']);
  expect(listed.code).toBe(0);
  expect(listed.stdout.trim().split('\n').sort()).toEqual([
    expect.stringMatching(/^urn:li:test:retention-is-long\s+Retention is at least a year\s+\(Governance\)$/),
    expect.stringMatching(/^urn:li:test:retention-is-set\s+Retention is set\s+\(Governance\)$/),
  ]);

  const got = await cli(['tests', 'get', '--urn', 'retention-is-set']);
  expect(got.code).toBe(0);
  expect(JSON.parse(got.stdout)).toEqual({
    urn: 'urn:li:test:retention-is-set',
    name: 'Retention is set',
    category: 'Governance',
    description: 'Production datasets keep data for a known time',
    definition: { on: { types: ['dataset'] }, rules: [{ property: `structuredProperties.${RETENTION}`, operator: 'exists' }] },
  });
  // What get prints is a file entry: written back, it updates the test.
  const back = await cli(['tests', 'upsert', '-f', writeFile(home, 'back.yaml', got.stdout)]);
  expect(back.stdout).toBe('Updated test urn:li:test:retention-is-set\n');
});

test('evaluate prints a PASS or FAIL line per test and the counts', async () => {
  const res = await cli(['tests', 'evaluate', '--urn', SEED_DATASET_URN]);
  expect(res.code).toBe(0);
  expect(res.stdout).toBe('PASS urn:li:test:retention-is-set\nFAIL urn:li:test:retention-is-long\n1 passing, 1 failing.\n');
});

test('a file with mistakes is refused before any write, each mistake named (exit 2)', async () => {
  const file = writeFile(home, 'bad.yaml', '- id: x\n  name: X\n  categroy: G\n  definition: {on: {types: [dataset]}, rules: []}\n- name: Y\n  category: G\n');
  const res = await cli(['tests', 'upsert', '-f', file]);
  expect(res.code).toBe(2);
  // Each at its line, in the words of the other CLI files.
  expect(res.stderr).toContain("bad.yaml:3: entry 1 (id: x): categroy: is not a known field; did you mean 'category'?");
  expect(res.stderr).toContain('bad.yaml:1: entry 1 (id: x): category: is required');
  expect(res.stderr).toContain('bad.yaml:5: entry 2: urn: is required (or give id)');
  expect(res.stderr).toContain('bad.yaml:5: entry 2: definition: is required: a mapping with on and rules');
  expect(res.stderr).toMatch(/errors in .*bad\.yaml; nothing was written\./);
  expect((await cli(['tests', 'get', '--urn', 'x'])).code).toBe(1);
});

test('the input limits hold in a tests file too: U+0000 is refused at its line before any write (exit 2)', async () => {
  const file = writeFile(home, 'nul.yaml', '- id: nul-test\n  name: N\n  category: G\n  description: "a\\0b"\n  definition: {on: {types: [dataset]}, rules: []}\n');
  const res = await cli(['tests', 'upsert', '-f', file]);
  expect(res.code).toBe(2);
  expect(res.stderr).toMatch(/nul\.yaml:4: entry 1: description: contains the character U\+0000/);
  expect((await cli(['tests', 'get', '--urn', 'nul-test'])).code).toBe(1);
});

test('a definition the server refuses fails that entry with its reason (exit 1); get of a missing test is exit 1', async () => {
  const file = writeFile(home, 'refused.yaml', '- id: bad-rule\n  name: Bad\n  category: G\n  definition: {on: {types: [dataset]}, rules: [{property: nosuchAspect.x, operator: exists}]}\n');
  const res = await cli(['tests', 'upsert', '-f', file]);
  expect(res.code).toBe(1);
  expect(res.stderr).toMatch(/urn:li:test:bad-rule: not written: .*nosuchAspect/);
  const missing = await cli(['tests', 'get', '--urn', 'urn:li:test:nope']);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toBe('Error: Test urn:li:test:nope does not exist\n');
});
