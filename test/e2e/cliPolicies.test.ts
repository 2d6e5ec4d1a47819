/**
 * The CLI's cells of the policy matrix (issue #40; the other interfaces are
 * test/integration/policyMatrix.test.ts): the CLI as a subprocess, as people signed in
 * through the real OpenID provider (their session tokens, their groups from its groups
 * claim) and as a machine token, each privilege allowed and refused, a refusal exiting 4
 * (a bulk edit's refused entities: 1) and naming the privilege; and policies as code:
 * `policies apply -f` with `--dry-run` printing what changes for whom and writing
 * nothing, then applying it; `access explain` and `access who`.
 */
import { rmSync } from 'node:fs';
import { freePort } from '../../src/embedded/freePort.js';
import { ensureConsoleBuilt } from '../support/build.js';
import { http } from '../support/http.js';
import { oidcEnv, propgraphClient, signInThroughConsoleRoutes, startOpenIdProvider, type ProviderPerson, type RunningProvider } from '../support/openIdProvider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ensureCliBuilt, runCli, tempDir, writeFile } from './cliRunner.js';

const ROOT = `pgt_cli_policies_${Math.random().toString(36).slice(2)}`;
const V3 = '/openapi/v3';
const PEOPLE = {
  ann: { login: 'ann', password: 'ann-pw', email: 'ann@example.com', name: 'Ann Finance', groups: ['stewards', 'finance'] },
  ben: { login: 'ben', password: 'ben-pw', email: 'ben@example.com', name: 'Ben Steward', groups: ['stewards'] },
  ada: { login: 'ada', password: 'ada-pw', email: 'ada@example.com', name: 'Ada Policies', groups: ['admins', 'policy-admins'] },
  amy: { login: 'amy', password: 'amy-pw', email: 'amy@example.com', name: 'Amy Admin', groups: ['admins'] },
} satisfies Record<string, ProviderPerson>;

const FIN = 'urn:li:dataset:(urn:li:dataPlatform:hive,cli.fin.ledger,PROD)';
const MKT = 'urn:li:dataset:(urn:li:dataPlatform:hive,cli.mkt.leads,PROD)';

/** The file an administrator keeps in version control: finance edits finance datasets, policy admins manage. */
const POLICIES_YAML = `policies:
  - id: c-read
    displayName: Everyone signed in reads
    privileges: [VIEW_ENTITY_PAGE]
    actors: {groups: [finance, admins]}
  - id: c-finance
    displayName: Finance edits finance datasets
    privileges: [EDIT_ENTITY, EDIT_ENTITY_PROPERTIES, SOFT_DELETE_ENTITY]
    actors: {groups: [finance]}
    resources:
      filter:
        criteria:
          - {field: TYPE, values: [dataset]}
          - {field: structuredProperties.cli.domain, values: [finance]}
  - id: c-finance-platform
    displayName: Finance bulk edits
    type: PLATFORM
    privileges: [BULK_EDIT]
    actors: {groups: [finance]}
  - id: c-finance-definitions
    displayName: Finance defines cli.fintier
    privileges: [MANAGE_STRUCTURED_PROPERTIES]
    actors: {groups: [finance]}
    resources:
      privilegeConstraints:
        criteria: [{field: PROPERTY, values: [cli.fintier]}]
  - id: c-admins
    displayName: Policy admins delete and manage tests
    privileges: [DELETE_ENTITY, MANAGE_TESTS]
    actors: {groups: [policy-admins]}
  - id: c-admins-platform
    displayName: Policy admins manage tokens and policies
    type: PLATFORM
    privileges: [MANAGE_ACCESS_TOKENS, MANAGE_POLICIES]
    actors: {groups: [policy-admins]}
`;

let provider: RunningProvider;
let server: TestServer;
let home: string;
const tokens: Partial<Record<keyof typeof PEOPLE | 'root', string>> = { root: ROOT };
const cli = (who: keyof typeof tokens, args: string[]) => runCli(args, { home, server: server.url, token: tokens[who]! });
const asRoot = (method: string, path: string, json: unknown) => http(server.url, method, path, { json, headers: { authorization: `Bearer ${ROOT}` } });

const definition = (qn: string) => `- id: ${qn}\n  type: string\n  display_name: ${qn}\n  entity_types: [dataset]\n`;

beforeAll(async () => {
  await Promise.all([ensureCliBuilt(), ensureConsoleBuilt()]);
  home = tempDir();
  const port = await freePort();
  provider = await startOpenIdProvider({ clients: [propgraphClient(`http://127.0.0.1:${port}/auth/callback`)], people: Object.values(PEOPLE) });
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, PORT: String(port), RATE_LIMIT_PER_MINUTE: '1000000', ...oidcEnv(provider.issuer) } });
  for (const [who, person] of Object.entries(PEOPLE)) tokens[who as keyof typeof PEOPLE] = (await signInThroughConsoleRoutes(server.url, person)).token;
  for (const qn of ['cli.domain', 'cli.tier', 'cli.fintier', 'cli.other']) {
    expect((await cli('root', ['properties', 'upsert', '-f', writeFile(home, `${qn}.yaml`, definition(qn))])).code).toBe(0);
  }
  for (const [urn, domain] of [[FIN, 'finance'], [MKT, 'marketing']]) {
    const made = await asRoot('POST', `${V3}/entity/dataset`, [{ urn, status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: 'urn:li:structuredProperty:cli.domain', values: [{ string: domain }] }] } } }]);
    expect(made.status).toBe(200);
  }
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await provider?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('policies as code', () => {
  test('--dry-run prints what changes for whom and writes nothing; apply writes it; --prune turns the shipped defaults off', async () => {
    const file = writeFile(home, 'policies.yaml', POLICIES_YAML);
    const dry = await cli('root', ['policies', 'apply', '-f', file, '--prune', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^create\s+urn:li:dataHubPolicy:c-finance\s+Finance edits finance datasets$/m);
    expect(dry.stdout).toMatch(/^\s+urn:li:corpGroup:finance gains EDIT_ENTITY, EDIT_ENTITY_PROPERTIES, SOFT_DELETE_ENTITY$/m);
    expect(dry.stdout).toMatch(/^deactivate urn:li:dataHubPolicy:propgraph-default-write/m);
    expect(dry.stdout).toMatch(/^\s+everyone signed in loses EDIT_ENTITY, EDIT_ENTITY_PROPERTIES, SOFT_DELETE_ENTITY, MANAGE_STRUCTURED_PROPERTIES$/m);
    expect(dry.stderr).toMatch(/10 of 10 policies would change; nothing was written \(--dry-run\)\./);
    expect((await cli('root', ['policies', 'list'])).stdout).not.toContain('c-finance');

    const applied = await cli('root', ['policies', 'apply', '-f', file, '--prune']);
    expect(applied.code).toBe(0);
    expect(applied.stderr).toMatch(/10 of 10 policies changed\./);
    const listed = await cli('root', ['policies', 'list']);
    expect(listed.stdout).toMatch(/^urn:li:dataHubPolicy:c-finance\s+ACTIVE\s+METADATA\s+Finance edits finance datasets/m);
    expect(listed.stdout).toMatch(/^urn:li:dataHubPolicy:propgraph-default-read\s+INACTIVE/m);
    const again = await cli('root', ['policies', 'apply', '-f', file, '--prune', '--dry-run']);
    expect(again.stderr).toMatch(/0 of 6 policies would change/);
  });

  test('a file with a mistake is refused naming where, and changes nothing', async () => {
    const bad = writeFile(home, 'bad.yaml', POLICIES_YAML.replace('[EDIT_ENTITY, EDIT_ENTITY_PROPERTIES, SOFT_DELETE_ENTITY]', '[EDIT_ENTITY, EDIT_EVERYTHING]'));
    const refused = await cli('root', ['policies', 'apply', '-f', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/policies\[1\]\.privileges\[1\] "EDIT_EVERYTHING" is not a privilege/);
  });
});

describe('the matrix, from the CLI', () => {
  const refusedFor = (privilege: string) => new RegExp(`needs the ${privilege} privilege`);

  test('VIEW_ENTITY_PAGE: finance reads; a steward in no reading group is refused (exit 4)', async () => {
    expect((await cli('ann', ['dataset', 'get', '--urn', FIN])).code).toBe(0);
    const refused = await cli('ben', ['dataset', 'get', '--urn', FIN]);
    expect([refused.code, refused.stderr]).toEqual([4, expect.stringMatching(refusedFor('VIEW_ENTITY_PAGE'))]);
  });

  test('EDIT_ENTITY_PROPERTIES by a value filter: a bulk edit changes the finance dataset and reports the marketing one (exit 1)', async () => {
    const done = await cli('ann', ['values', 'set', '--urn', FIN, '--urn', MKT, '--property', 'cli.tier=gold']);
    expect(done.code).toBe(1);
    expect(done.stdout).toMatch(/1 changed, 0 unchanged, 1 refused/);
    expect(done.stderr).toContain(`${MKT}: not changed: `);
    expect(done.stderr).toMatch(refusedFor('EDIT_ENTITY_PROPERTIES'));
  });

  test('BULK_EDIT: a steward without it cannot start one (exit 4)', async () => {
    const refused = await cli('ben', ['values', 'set', '--urn', FIN, '--property', 'cli.tier=silver']);
    expect([refused.code, refused.stderr]).toEqual([4, expect.stringMatching(refusedFor('BULK_EDIT'))]);
  });

  test('EDIT_ENTITY_PROPERTIES and EDIT_ENTITY from a dataset file: finance yes, marketing no', async () => {
    const fin = writeFile(home, 'fin.yaml', '- urn: urn:li:dataset:(urn:li:dataPlatform:hive,cli.fin.ledger,PROD)\n  structured_properties:\n    cli.tier: silver\n');
    expect((await cli('ann', ['dataset', 'upsert', '-f', fin])).code).toBe(0);
    const mkt = writeFile(home, 'mkt.yaml', '- urn: urn:li:dataset:(urn:li:dataPlatform:hive,cli.mkt.leads,PROD)\n  structured_properties:\n    cli.tier: silver\n');
    const refused = await cli('ann', ['dataset', 'upsert', '-f', mkt]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(refusedFor('EDIT_ENTITY_PROPERTIES'));
  });

  test('SOFT_DELETE_ENTITY: finance soft deletes its dataset, not a marketing one', async () => {
    const refused = await cli('ann', ['delete', '--urn', MKT]);
    expect([refused.code, refused.stderr]).toEqual([4, expect.stringMatching(refusedFor('SOFT_DELETE_ENTITY'))]);
    expect((await cli('ann', ['delete', '--urn', FIN])).code).toBe(0);
    expect((await cli('root', ['restore', '--urn', FIN])).code).toBe(0);
  });

  test('MANAGE_STRUCTURED_PROPERTIES limited to one property', async () => {
    expect((await cli('ann', ['properties', 'upsert', '-f', writeFile(home, 'fintier.yaml', `${definition('cli.fintier')}  description: finance tier\n`)])).code).toBe(0);
    const refused = await cli('ann', ['properties', 'upsert', '-f', writeFile(home, 'other.yaml', `${definition('cli.other')}  description: not theirs\n`)]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(refusedFor('MANAGE_STRUCTURED_PROPERTIES'));
  });

  test('DELETE_ENTITY, MANAGE_TESTS, MANAGE_ACCESS_TOKENS, MANAGE_POLICIES: a policy admin yes, another admin no', async () => {
    const gone = 'urn:li:dataset:(urn:li:dataPlatform:hive,cli.gone,PROD)';
    await asRoot('POST', `${V3}/entity/dataset`, [{ urn: gone, status: { value: { removed: false } } }]);
    expect((await cli('amy', ['delete', '--urn', gone, '--hard', '--force'])).stderr).toMatch(refusedFor('DELETE_ENTITY'));
    expect((await cli('ada', ['delete', '--urn', gone, '--hard', '--force'])).code).toBe(0);

    const tests = writeFile(home, 'tests.yaml', '- id: cli-policy-test\n  name: T\n  category: G\n  definition: {on: {types: [dataset]}, rules: [{property: urn, operator: exists}]}\n');
    expect((await cli('amy', ['tests', 'upsert', '-f', tests])).stderr).toMatch(refusedFor('MANAGE_TESTS'));
    expect((await cli('ada', ['tests', 'upsert', '-f', tests])).code).toBe(0);

    const amyToken = await cli('amy', ['tokens', 'create', '--name', 'amy-machine', '--scope', 'read', '--type', 'machine']);
    expect([amyToken.code, amyToken.stderr]).toEqual([4, expect.stringMatching(refusedFor('MANAGE_ACCESS_TOKENS'))]);
    expect((await cli('ada', ['tokens', 'create', '--name', 'ada-machine', '--scope', 'read', '--type', 'machine'])).code).toBe(0);

    const one = writeFile(home, 'one.yaml', 'policies:\n  - {id: c-extra, displayName: extra, privileges: [VIEW_ENTITY_PAGE], actors: {groups: [extra]}}\n');
    const amyPolicies = await cli('amy', ['policies', 'apply', '-f', one]);
    expect([amyPolicies.code, amyPolicies.stderr]).toEqual([4, expect.stringMatching(refusedFor('MANAGE_POLICIES'))]);
    expect((await cli('ada', ['policies', 'apply', '-f', one])).code).toBe(0);
    expect((await cli('ada', ['policies', 'delete', '--id', 'c-extra'])).code).toBe(0);
  });

  test('access explain answers why, and exits 0 when allowed, 1 when not; access who names the grantees', async () => {
    const no = await cli('ann', ['access', 'explain', '--privilege', 'EDIT_ENTITY_PROPERTIES', '--urn', MKT, '--property', 'cli.tier']);
    expect(no.code).toBe(1);
    expect(no.stdout).toMatch(/^urn:li:corpuser:ann@example.com may not EDIT_ENTITY_PROPERTIES on /m);
    expect(no.stdout).toMatch(/not by urn:li:dataHubPolicy:c-finance \(Finance edits finance datasets\): .*does not match its resources \(structuredProperties.cli.domain in finance\)/);
    const yes = await cli('ann', ['access', 'explain', '--privilege', 'EDIT_ENTITY_PROPERTIES', '--urn', FIN, '--property', 'cli.tier']);
    expect([yes.code, yes.stdout]).toEqual([0, expect.stringMatching(/granted by urn:li:dataHubPolicy:c-finance/)]);
    const other = await cli('ada', ['access', 'explain', '--principal', 'ann@example.com', '--privilege', 'BULK_EDIT']);
    expect(other.code).toBe(0);
    expect((await cli('ann', ['access', 'explain', '--principal', 'ben@example.com', '--privilege', 'BULK_EDIT'])).code).toBe(4);
    const who = await cli('ann', ['access', 'who', '--privilege', 'EDIT_ENTITY_PROPERTIES', '--urn', FIN, '--property', 'cli.tier']);
    expect(who.stdout).toMatch(/^urn:li:corpGroup:finance\s+\(by urn:li:dataHubPolicy:c-finance, Finance edits finance datasets\)$/m);
  });
});
