/**
 * What the web console needed from the GraphQL API, added for every client (issue 16):
 * `me` with the privileges of the token's scope, property settings, the whole-definition
 * replace with its compatibility check, soft delete and restore, the definition's
 * history, jobs (the cleanup a hard delete starts, and its progress), evaluating tests,
 * and a dataset's fields with their values and test results. The rules behind these
 * operations are tested at the services (test/services/); here, their GraphQL shapes.
 */
import { graphql } from '../support/graphql.js';
import { http, indexCaughtUp } from '../support/http.js';
import { datasetUrnOf, V3 } from '../support/fixtures.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';

const ROOT = `pgt_console_api_${Math.random().toString(36).slice(2)}`;
let server: TestServer;
let url: string;
const admin = { authorization: `Bearer ${ROOT}` };

beforeAll(async () => {
  // Writes answer at commit and nobody waits for the index: only the default-facets test searches, and it waits itself.
  // evaluateTests stores only with push here: the continuous evaluator would store results of its own (test/services/testEvaluation.test.ts).
  server = await startTestServer({ search: searchAvailableForTests(), env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, WRITE_WAIT_FOR_INDEX: 'false', TEST_EVALUATION: 'false' } });
  url = server.url;
});
afterAll(async () => {
  await server.stop();
});

const gql = (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = admin) => graphql(url, query, variables, '/api/graphql', headers, { readYourWrites: false });

let seq = 0;
const uniqueName = (prefix: string) => `io.console.${prefix}${++seq}`;

const CREATE = `mutation c($input: CreateStructuredPropertyInput!) { createStructuredProperty(input: $input) { urn } }`;
const REPLACE = `mutation r($input: ReplaceStructuredPropertyDefinitionInput!) {
  replaceStructuredPropertyDefinition(input: $input) {
    urn definition { version cardinality allowedValues { value { ... on StringValue { stringValue } } description } entityTypes { urn } }
  }
}`;
const DATASET_VALUES = `query d($urn: String!) {
  dataset(urn: $urn) { structuredProperties { properties { structuredProperty { urn } values { ... on StringValue { stringValue } ... on NumberValue { numberValue } } } } }
}`;
const UPSERT = `mutation u($input: UpsertStructuredPropertiesInput!) { upsertStructuredProperties(input: $input) { properties { associatedUrn } } }`;
const JOBS = `query j($input: ListJobsInput) { listJobs(input: $input) { count jobs { id kind status propertyUrn total done remaining percentDone createdAt finishedAt } } }`;

async function createTierProperty(values: string[] = ['gold', 'silver']): Promise<string> {
  const res = await gql(CREATE, {
    input: {
      id: uniqueName('tier'),
      valueType: 'urn:li:dataType:string',
      entityTypes: ['urn:li:entityType:dataset'],
      allowedValues: values.map((v) => ({ stringValue: v, description: `${v} tier` })),
    },
  });
  expect(res.errors).toBeUndefined();
  return res.data.createStructuredProperty.urn;
}

async function datasetWith(name: string, propertyUrn: string, value: string): Promise<string> {
  const urn = datasetUrnOf(name);
  const created = await http(url, 'POST', `${V3}/entity/dataset`, { json: [{ urn, status: { value: { removed: false } } }], headers: admin, readYourWrites: false });
  expect(created.status).toBe(200);
  const res = await gql(UPSERT, { input: { assetUrn: urn, structuredPropertyInputParams: [{ structuredPropertyUrn: propertyUrn, values: [{ stringValue: value }] }] } });
  expect(res.errors).toBeUndefined();
  return urn;
}

async function valuesOn(datasetUrn: string): Promise<Array<{ structuredProperty: { urn: string }; values: unknown[] }>> {
  const res = await gql(DATASET_VALUES, { urn: datasetUrn });
  expect(res.errors).toBeUndefined();
  return res.data.dataset.structuredProperties?.properties ?? [];
}

/** Polls listJobs for the property's newest cleanup job until it is done (bounded). */
function cleanupJobDone(propertyUrn: string): Promise<Record<string, any>> {
  return waitFor(`the cleanup job of ${propertyUrn}`, 60_000, async () => {
    const res = await gql(JOBS, { input: { propertyUrn, kind: 'cleanup-property-values' } });
    expect(res.errors).toBeUndefined();
    const job = res.data.listJobs.jobs[0];
    return job?.status === 'DONE' ? job : undefined;
  }, 100);
}

describe('me', () => {
  const ME = '{ me { corpUser { urn username } scope tokenId platformPrivileges { manageStructuredProperties deleteStructuredProperties editStructuredPropertyValues manageTests pushTestResults manageTokens } } }';

  async function tokenOf(scope: string): Promise<{ secret: string; id: string }> {
    const res = await http(url, 'POST', `${V3}/tokens`, { json: { name: `console-${scope}-${++seq}`, scope }, headers: admin, readYourWrites: false });
    expect(res.status).toBe(200);
    return { secret: res.body.accessToken, id: res.body.metadata.id };
  }

  test.each([
    ['read', { manageStructuredProperties: false, deleteStructuredProperties: false, editStructuredPropertyValues: false, manageTests: false, pushTestResults: false, manageTokens: false }],
    ['write', { manageStructuredProperties: true, deleteStructuredProperties: false, editStructuredPropertyValues: true, manageTests: false, pushTestResults: true, manageTokens: false }],
    ['admin', { manageStructuredProperties: true, deleteStructuredProperties: true, editStructuredPropertyValues: true, manageTests: true, pushTestResults: true, manageTokens: true }],
  ])('a %s token sees its scope, its id and what the scope allows', async (scope, privileges) => {
    const token = await tokenOf(scope);
    const res = await gql(ME, undefined, { authorization: `Bearer ${token.secret}` });
    expect(res.errors).toBeUndefined();
    expect(res.data.me).toEqual({
      corpUser: { urn: expect.stringMatching(/^urn:li:corpuser:__service_console-/), username: expect.stringMatching(/^__service_console-/) },
      scope: scope.toUpperCase(),
      tokenId: token.id,
      platformPrivileges: privileges,
    });
  });

  test('an expired token is refused with a message saying so', async () => {
    const res = await http(url, 'POST', `${V3}/tokens`, { json: { name: `console-expiring-${++seq}`, scope: 'read', expiresAt: Date.now() + 1500 }, headers: admin, readYourWrites: false });
    expect(res.status).toBe(200);
    const headers = { authorization: `Bearer ${res.body.accessToken}` };
    expect((await gql(ME, undefined, headers)).status).toBe(200);
    let refused = await gql(ME, undefined, headers);
    while (refused.status === 200) {
      await new Promise((r) => setTimeout(r, 200));
      refused = await gql(ME, undefined, headers);
    }
    expect(refused.status).toBe(401);
    expect(refused.errors).toEqual([{ message: 'Access token has expired', extensions: { code: 'UNAUTHENTICATED' } }]);
  });
});

describe('settings', () => {
  const SETTINGS = 'query s($urn: String!) { structuredProperty(urn: $urn) { settings { isHidden showInSearchFilters showInAssetSummary showAsAssetBadge showInColumnsTable } } }';

  test('create stores the settings given; update changes only the flags it names; absent settings read as false', async () => {
    const created = await gql(CREATE, {
      input: { id: uniqueName('shown'), valueType: 'urn:li:dataType:number', entityTypes: ['urn:li:entityType:dataset'], settings: { showInSearchFilters: true } },
    });
    expect(created.errors).toBeUndefined();
    const urn = created.data.createStructuredProperty.urn;
    const read = async () => (await gql(SETTINGS, { urn })).data.structuredProperty.settings;
    expect(await read()).toEqual({ isHidden: false, showInSearchFilters: true, showInAssetSummary: false, showAsAssetBadge: false, showInColumnsTable: false });
    const updated = await gql('mutation u($urn: String!) { updateStructuredProperty(input: {urn: $urn, settings: {showAsAssetBadge: true}}) { urn } }', { urn });
    expect(updated.errors).toBeUndefined();
    expect(await read()).toMatchObject({ showInSearchFilters: true, showAsAssetBadge: true });
    const plain = await createTierProperty();
    expect((await gql(SETTINGS, { urn: plain })).data.structuredProperty.settings).toEqual({
      isHidden: false, showInSearchFilters: false, showInAssetSummary: false, showAsAssetBadge: false, showInColumnsTable: false,
    });
  });

  (searchAvailableForTests() ? test : test.skip)('a property created with showInSearchFilters is among the default facets', async () => {
    const created = await gql(CREATE, {
      input: { id: uniqueName('facet'), displayName: 'Facet me', valueType: 'urn:li:dataType:string', entityTypes: ['urn:li:entityType:dataset'], settings: { showInSearchFilters: true } },
    });
    expect(created.errors).toBeUndefined();
    await indexCaughtUp(url, undefined, admin.authorization);
    const facets = await gql('{ aggregateAcrossEntities(input: {query: "*"}) { facets { field displayName } } }');
    expect(facets.errors).toBeUndefined();
    expect(facets.data.aggregateAcrossEntities.facets).toContainEqual({ field: `structuredProperties.${created.data.createStructuredProperty.urn.split(':').pop()}`, displayName: 'Facet me' });
  });
});

describe('replaceStructuredPropertyDefinition', () => {
  test('a breaking replace without a new version is refused naming the change and what to do; nothing changes', async () => {
    const urn = await createTierProperty();
    const dataset = await datasetWith('console.breaking1', urn, 'silver');
    const res = await gql(REPLACE, { input: { urn, valueType: 'urn:li:dataType:string', entityTypes: ['urn:li:entityType:dataset'], allowedValues: [{ stringValue: 'gold' }] } });
    expect(res.errors).toEqual([
      {
        // The impact of the new version it asks for follows (docs/contract.md §13).
        message:
          'Incompatible structured property definition change: allowed value "silver" is removed (1 entity holds values it breaks). Set a new version (yyyyMMddhhmmss) to apply a breaking change, which drops every stored value, or send a migration that keeps them. A new version hides at once, and then removes, the 1 value on 1 entity (dataset: 1) the property holds now.',
        // The service's own code beside Apollo's: the console tells a breaking change apart by it, not by the text.
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', reason: 'INCOMPATIBLE_CHANGE' }),
        locations: expect.anything(),
        path: ['replaceStructuredPropertyDefinition'],
      },
    ]);
    const after = await gql('query p($urn: String!) { structuredProperty(urn: $urn) { definition { allowedValues { value { ... on StringValue { stringValue } } } } definitionHistory { revision } } }', { urn });
    expect(after.data.structuredProperty.definition.allowedValues).toHaveLength(2);
    expect(after.data.structuredProperty.definitionHistory).toEqual([{ revision: 1 }]);
    expect(await valuesOn(dataset)).toHaveLength(1);
  });

  test('an unknown property is NOT_FOUND and is not created', async () => {
    const urn = 'urn:li:structuredProperty:io.console.never';
    const res = await gql(REPLACE, { input: { urn, valueType: 'urn:li:dataType:string', entityTypes: ['urn:li:entityType:dataset'] } });
    expect(res.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await gql('query p($urn: String!) { structuredProperty(urn: $urn) { urn } }', { urn })).data.structuredProperty).toBeNull();
  });
});

describe('importStructuredPropertyValues', () => {
  const IMPORT = `mutation i($input: ImportStructuredPropertyValuesInput!) {
    importStructuredPropertyValues(input: $input) {
      dryRun written rows changed unchanged
      problems { line urn column reason }
      changes { line urn change { structuredProperty { urn } before { ... on StringValue { stringValue } } after { ... on StringValue { stringValue } } } }
    }
  }`;
  test('a dry run answers every problem and every change; a write with problems is BAD_USER_INPUT; a clean one writes', async () => {
    const urn = await createTierProperty();
    const a = await datasetWith('console.import1', urn, 'silver');
    const b = await datasetWith('console.import2', urn, 'silver');
    const rows = [
      { line: 2, urn: a, cells: [['gold']] },
      { line: 3, urn: b, cells: [['platinum']] },
      { line: 4, urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,console.never,PROD)', cells: [['gold']] },
    ];
    const dry = await gql(IMPORT, { input: { columns: [urn], rows, dryRun: true } });
    expect(dry.errors).toBeUndefined();
    expect(dry.data.importStructuredPropertyValues).toMatchObject({ dryRun: true, written: false, rows: 3, changed: 1 });
    expect(dry.data.importStructuredPropertyValues.problems).toEqual([
      { line: 3, urn: b, column: urn, reason: expect.stringMatching(/value: \{string=platinum\} should be one of/) },
      { line: 4, urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,console.never,PROD)', column: null, reason: 'does not exist; values are set on existing entities only' },
    ]);
    expect(dry.data.importStructuredPropertyValues.changes).toEqual([{ line: 2, urn: a, change: { structuredProperty: { urn }, before: [{ stringValue: 'silver' }], after: [{ stringValue: 'gold' }] } }]);

    const refused = await gql(IMPORT, { input: { columns: [urn], rows, dryRun: false } });
    expect(refused.errors?.[0]).toMatchObject({ message: expect.stringMatching(/^2 problems in the import, nothing was written/), extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) });
    expect(await valuesOn(a)).toEqual([{ structuredProperty: { urn }, values: [{ stringValue: 'silver' }] }]);

    const written = await gql(IMPORT, { input: { columns: [urn], rows: [rows[0], { ...rows[1], cells: [['gold']] }], dryRun: false } });
    expect(written.data.importStructuredPropertyValues).toMatchObject({ written: true, changed: 2, problems: [] });
    expect(await valuesOn(b)).toEqual([{ structuredProperty: { urn }, values: [{ stringValue: 'gold' }] }]);
  });
});

describe('definitionHistory', () => {
  test('lists the definition after each write, newest first, with who wrote it', async () => {
    const urn = await createTierProperty(['a']);
    await gql('mutation u($urn: String!) { updateStructuredProperty(input: {urn: $urn, description: "second"}) { urn } }', { urn });
    await gql(REPLACE, { input: { urn, valueType: 'urn:li:dataType:string', entityTypes: ['urn:li:entityType:dataset'], allowedValues: [{ stringValue: 'b' }], version: '20261124000001' } });
    const res = await gql(
      'query h($urn: String!) { structuredProperty(urn: $urn) { definitionHistory { revision written { time actor { urn } } definition { version description allowedValues { value { ... on StringValue { stringValue } } } } } } }',
      { urn },
    );
    expect(res.errors).toBeUndefined();
    const history = res.data.structuredProperty.definitionHistory;
    expect(history.map((h: any) => [h.revision, h.definition.version, h.definition.description, h.definition.allowedValues.map((a: any) => a.value.stringValue)])).toEqual([
      [3, '20261124000001', null, ['b']],
      [2, null, 'second', ['a']],
      [1, null, null, ['a']],
    ]);
    expect(history[0].written.actor.urn).toBe('urn:li:corpuser:__service_root');
    expect(history[0].written.time).toBeGreaterThanOrEqual(history[2].written.time);
  });
});

describe('soft delete and restore', () => {
  const STATUS = 'query s($urn: String!) { structuredProperty(urn: $urn) { status { removed } } }';

  test('soft delete answers the status and freezes the definition; restore answers it again', async () => {
    const urn = await createTierProperty();
    const deleted = await gql('mutation d($urn: String!) { softDeleteStructuredProperty(input: {urn: $urn}) { urn status { removed } } }', { urn });
    expect(deleted.errors).toBeUndefined();
    expect(deleted.data.softDeleteStructuredProperty).toEqual({ urn, status: { removed: true } });
    const frozen = await gql('mutation u($urn: String!) { updateStructuredProperty(input: {urn: $urn, description: "x"}) { urn } }', { urn });
    expect(frozen.errors?.[0]?.message).toBe('Cannot mutate a soft deleted Structured Property Definition');

    const restored = await gql('mutation r($urn: String!) { restoreStructuredProperty(input: {urn: $urn}) { status { removed } } }', { urn });
    expect(restored.errors).toBeUndefined();
    expect(restored.data.restoreStructuredProperty).toEqual({ status: { removed: false } });
    expect((await gql(STATUS, { urn })).data.structuredProperty.status).toEqual({ removed: false });
  });

  test('soft deleting a property that does not exist is NOT_FOUND; a urn of another type is BAD_USER_INPUT', async () => {
    const missing = await gql('mutation d { softDeleteStructuredProperty(input: {urn: "urn:li:structuredProperty:io.console.none"}) { urn } }');
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const wrong = await gql(`mutation d { restoreStructuredProperty(input: {urn: "${datasetUrnOf('console.x')}"}) { urn } }`);
    expect(wrong.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('jobs', () => {
  test('a hard delete starts a cleanup job for the property, followed to 100% through listJobs and job(id)', async () => {
    const urn = await createTierProperty();
    for (let i = 0; i < 3; i++) await datasetWith(`console.hard${i}`, urn, 'gold');
    const deleted = await gql('mutation d($urn: String!) { deleteStructuredProperty(input: {urn: $urn}) }', { urn });
    expect(deleted.data.deleteStructuredProperty).toBe(true);
    const done = await cleanupJobDone(urn);
    expect(done).toMatchObject({ kind: 'cleanup-property-values', status: 'DONE', propertyUrn: urn, total: 3, done: 3, remaining: 0, percentDone: 100 });
    expect(done.finishedAt).toBeGreaterThanOrEqual(done.createdAt);
    const byId = await gql('query j($id: String!) { job(id: $id) { id status percentDone } }', { id: done.id });
    expect(byId.data.job).toEqual({ id: done.id, status: 'DONE', percentDone: 100 });
  });

  test('an unknown job is null; a bad count is BAD_USER_INPUT naming it', async () => {
    expect((await gql('{ job(id: "999999999") { id } }')).data.job).toBeNull();
    expect((await gql('{ job(id: "not-a-number") { id } }')).data.job).toBeNull();
    const bad = await gql(JOBS, { input: { count: -1 } });
    expect(bad.errors?.[0]).toMatchObject({ message: 'count must be a whole number >= 0, got -1', extensions: { code: 'BAD_USER_INPUT' } });
  });
});

describe('evaluateTests', () => {
  const EVALUATE = 'mutation e($input: EvaluateTestsInput!) { evaluateTests(input: $input) { passing { test { urn } type } failing { test { urn } type } } }';

  test('evaluates the tests for the entity; with push the results are stored', async () => {
    const urn = await createTierProperty();
    const dataset = await datasetWith('console.tested', urn, 'gold');
    const json = (value: string) => JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: `structuredProperties.${urn}`, operator: 'equals', values: [value] }] });
    for (const [id, value] of [['console-gold', 'gold'], ['console-silver', 'silver']] as const) {
      const created = await gql('mutation c($input: CreateTestInput!) { createTest(input: $input) }', { input: { id, name: id, category: 'Console', definition: { json: json(value) } } });
      expect(created.errors).toBeUndefined();
    }
    const testUrns = ['urn:li:test:console-gold', 'urn:li:test:console-silver'];
    const dry = await gql(EVALUATE, { input: { urn: dataset, testUrns } });
    expect(dry.errors).toBeUndefined();
    expect(dry.data.evaluateTests).toEqual({
      passing: [{ test: { urn: 'urn:li:test:console-gold' }, type: 'SUCCESS' }],
      failing: [{ test: { urn: 'urn:li:test:console-silver' }, type: 'FAILURE' }],
    });
    const stored = () => gql('query d($urn: String!) { dataset(urn: $urn) { testResults { passing { type } } } }', { urn: dataset });
    expect((await stored()).data.dataset.testResults).toBeNull();
    expect((await gql(EVALUATE, { input: { urn: dataset, testUrns, push: true } })).errors).toBeUndefined();
    expect((await stored()).data.dataset.testResults).toEqual({ passing: [{ type: 'SUCCESS' }] });
  });
});

describe('Dataset.schemaMetadata', () => {
  test("lists the dataset's fields with each field's values and test results", async () => {
    const urn = await createTierProperty();
    const fieldsProperty = await gql(CREATE, { input: { id: uniqueName('pii'), valueType: 'urn:li:dataType:string', entityTypes: ['urn:li:entityType:schemaField'] } });
    const pii = fieldsProperty.data.createStructuredProperty.urn;
    const dataset = await datasetWith('console.fields', urn, 'gold');
    const schema = await http(url, 'POST', `${V3}/entity/dataset/${encodeURIComponent(dataset)}/schemaMetadata`, {
      query: { createIfNotExists: 'false' },
      json: { value: { schemaName: 'orders', fields: [{ fieldPath: 'id', nativeDataType: 'bigint', description: 'Order id' }, { fieldPath: 'email', nativeDataType: 'varchar' }, { nativeDataType: 'no path' }] } },
      headers: admin,
      readYourWrites: false,
    });
    expect(schema.status).toBe(200);
    const field = `urn:li:schemaField:(${dataset},email)`;
    expect((await gql(UPSERT, { input: { assetUrn: field, structuredPropertyInputParams: [{ structuredPropertyUrn: pii, values: [{ stringValue: 'yes' }] }] } })).errors).toBeUndefined();
    const res = await gql(
      'query d($urn: String!) { dataset(urn: $urn) { schemaMetadata { fields { fieldPath nativeDataType description schemaFieldEntity { urn testResults { passing { type } } structuredProperties { properties { values { ... on StringValue { stringValue } } } } } } } } }',
      { urn: dataset },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.dataset.schemaMetadata.fields).toEqual([
      { fieldPath: 'id', nativeDataType: 'bigint', description: 'Order id', schemaFieldEntity: { urn: `urn:li:schemaField:(${dataset},id)`, testResults: null, structuredProperties: null } },
      { fieldPath: 'email', nativeDataType: 'varchar', description: null, schemaFieldEntity: { urn: field, testResults: null, structuredProperties: { properties: [{ values: [{ stringValue: 'yes' }] }] } } },
    ]);
    const bare = await gql('query d($urn: String!) { dataset(urn: $urn) { schemaMetadata { fields { fieldPath } } } }', { urn: await datasetWith('console.nofields', urn, 'gold') });
    expect(bare.data.dataset.schemaMetadata).toBeNull();
  });
});
