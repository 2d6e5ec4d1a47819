/**
 * `propgraph dataset upsert|get` end to end: the built CLI as a subprocess against
 * a real server, effects read back over REST.
 */
import { rmSync } from 'node:fs';
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ensureCliBuilt, runCli, tempDir, writeFile, type CliResult } from './cliRunner.js';
import { SEED_DATASET_URN, SEED_DATASET_YAML, SEED_PROPERTIES_YAML } from './seedExamples.js';

let server: TestServer;
let home: string;

const EXTRA_PROPERTIES = `- id: ds.single
  type: string
  entity_types: [dataset]
- id: ds.text
  type: string
  cardinality: MULTIPLE
  entity_types: [dataset, schemaField]
- id: ds.level
  type: number
  entity_types: [dataset]
  allowed_values: [{value: 1}, {value: 2}, {value: 3}]
- id: ds.gone
  type: string
  entity_types: [dataset]
`;

const cli = (args: string[]): Promise<CliResult> => runCli(args, { home, server: `${server.url}/gms` });
const yamlFile = (name: string, text: string) => writeFile(home, name, text);
const fieldUrn = (dataset: string, path: string) => `urn:li:schemaField:(${dataset},${path})`;
const hiveUrn = (name: string, env = 'PROD') => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},${env})`;

async function propertiesOf(type: 'dataset' | 'schemaField', urn: string): Promise<{ status: number; text: string; properties?: unknown }> {
  const res = await http(server.url, 'GET', `/openapi/v3/entity/${type}/${enc(urn)}/structuredProperties`);
  return { status: res.status, text: res.text, properties: res.body?.structuredProperties?.value?.properties };
}

/** The HTTP requests of a method the server has answered, from its /metrics. */
function requestsOf(metrics: { text: string }, method: string): number {
  let total = 0;
  for (const line of metrics.text.split('\n')) {
    if (line.startsWith('propgraph_http_requests_total{') && line.includes(`method="${method}"`)) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

async function rejectedFile(name: string, text: string): Promise<string> {
  const result = await cli(['dataset', 'upsert', '-f', yamlFile(name, text)]);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/nothing was written\.\n$/);
  return result.stderr;
}

async function exists(urn: string): Promise<boolean> {
  return (await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(urn)}`)).status === 200;
}

beforeAll(async () => {
  await ensureCliBuilt();
  server = await startTestServer();
  home = tempDir();
  for (const [name, text] of [['seed-props.yaml', SEED_PROPERTIES_YAML], ['extra-props.yaml', EXTRA_PROPERTIES]] as const) {
    const result = await cli(['properties', 'upsert', '-f', yamlFile(name, text)]);
    if (result.code !== 0) throw new Error(`setup failed: ${result.stderr}`);
  }
  const soft = await cli(['delete', '--urn', 'urn:li:structuredProperty:ds.gone']);
  if (soft.code !== 0) throw new Error(`setup failed: ${soft.stderr}`);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('dataset upsert with the example dataset file', () => {
  let result: CliResult;
  beforeAll(async () => {
    expect(await exists(SEED_DATASET_URN)).toBe(false);
    result = await cli(['dataset', 'upsert', '-f', yamlFile('seed-dataset.yaml', SEED_DATASET_YAML)]);
  });

  it('prints "Update succeeded for urn <urn>." and exits 0', () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Update succeeded for urn ${SEED_DATASET_URN}.\n`);
  });

  it('creates the missing dataset and sets its properties, typed by their definitions', async () => {
    expect(await exists(SEED_DATASET_URN)).toBe(true);
    const own = await propertiesOf('dataset', SEED_DATASET_URN);
    expect(own.properties).toEqual([
      { propertyUrn: 'urn:li:structuredProperty:io.acryl.dataManagement.replicationSLA', values: [{ double: 90 }] },
      { propertyUrn: 'urn:li:structuredProperty:io.acryl.privacy.retentionTime', values: [{ double: 30 }, { double: 90 }] },
    ]);
    expect(own.text).toContain('{"double":90.0}');
  });

  it("sets the field's properties on its schemaField entity", async () => {
    const field = await propertiesOf('schemaField', fieldUrn(SEED_DATASET_URN, 'ip'));
    expect(field.properties).toEqual([{ propertyUrn: 'urn:li:structuredProperty:io.acryl.dataManagement.deprecationDate', values: [{ string: '2023-01-01' }] }]);
  });

  it("dataset get prints the dataset with its properties and its fields' properties", async () => {
    const got = await cli(['dataset', 'get', '--urn', SEED_DATASET_URN]);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toEqual({
      urn: SEED_DATASET_URN,
      id: 'user.clicks',
      platform: 'hive',
      env: 'PROD',
      structured_properties: {
        'io.acryl.dataManagement.replicationSLA': 90,
        'io.acryl.privacy.retentionTime': [30, 90],
      },
      structured_properties_version: expect.stringMatching(/^\d+$/),
      schema: {
        fields: [
          {
            id: 'ip',
            urn: fieldUrn(SEED_DATASET_URN, 'ip'),
            structured_properties: { 'io.acryl.dataManagement.deprecationDate': '2023-01-01' },
          },
        ],
      },
    });
  });

  it('merges on the next upsert: sets what the file names, keeps the other properties, and leaves fields the file does not set alone', async () => {
    const file = yamlFile('seed-dataset-2.yaml', `- id: user.clicks\n  platform: hive\n  structured_properties:\n    io.acryl.dataManagement.replicationSLA: 60\n`);
    const dry = await cli(['dataset', 'upsert', '-f', file, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(
      `${SEED_DATASET_URN}\n  io.acryl.dataManagement.replicationSLA: 90 -> 60\n` +
        `${file}: 1 dataset is valid; 0 would be created, 1 updated and 0 left as they are; 1 property would change on 1 of 1 entities (merge: properties the file does not name are kept). Nothing was written (dry run).\n`,
    );
    const next = await cli(['dataset', 'upsert', '-f', file]);
    expect(next.code).toBe(0);
    expect((await propertiesOf('dataset', SEED_DATASET_URN)).properties).toEqual([
      { propertyUrn: 'urn:li:structuredProperty:io.acryl.dataManagement.replicationSLA', values: [{ double: 60 }] },
      { propertyUrn: 'urn:li:structuredProperty:io.acryl.privacy.retentionTime', values: [{ double: 30 }, { double: 90 }] },
    ]);
    expect((await propertiesOf('schemaField', fieldUrn(SEED_DATASET_URN, 'ip'))).properties).toHaveLength(1);
  });

  it("--replace replaces the dataset's whole aspect; its --dry-run lists the removals too", async () => {
    const file = yamlFile('seed-dataset-3.yaml', `- id: user.clicks\n  platform: hive\n  structured_properties:\n    io.acryl.dataManagement.replicationSLA: 45\n`);
    const dry = await cli(['dataset', 'upsert', '--replace', '-f', file, '--dry-run']);
    expect(dry.stdout).toContain('  io.acryl.privacy.retentionTime: 30, 90 -> (none)\n');
    expect(dry.stdout).toContain('(replace: each entity would hold exactly the properties the file names)');
    const next = await cli(['dataset', 'upsert', '--replace', '-f', file]);
    expect(next.code).toBe(0);
    expect((await propertiesOf('dataset', SEED_DATASET_URN)).properties).toEqual([
      { propertyUrn: 'urn:li:structuredProperty:io.acryl.dataManagement.replicationSLA', values: [{ double: 45 }] },
    ]);
  });
});

describe('dataset upsert: descriptions, field types, creations and batches (issue #41)', () => {
  const described = hiveUrn('described.orders');
  const file = `- id: described.orders
  platform: hive
  name: Orders
  description: Orders placed in the shop
  schema:
    fields:
      - id: amount
        type: decimal
        nativeDataType: decimal(12,2)
        description: What the customer paid
      - id: note
        type: string
        structured_properties:
          ds.text: free
`;

  async function aspectOf(urn: string, aspect: string): Promise<Record<string, unknown> | undefined> {
    const res = await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(urn)}/${aspect}`);
    return res.status === 200 ? res.body[aspect].value : undefined;
  }

  it('a dry run says which datasets it would create, with their description and fields ("0 properties would change on 0 of 0 entities" before)', async () => {
    const other = hiveUrn('described.customers');
    const both = yamlFile('described-dry.yaml', `${file}- id: described.customers\n  platform: hive\n`);
    const dry = await cli(['dataset', 'upsert', '--dry-run', '-f', both]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(
      `${described} (new)\n` +
        '  description: (none) -> Orders placed in the shop\n' +
        '  name: (none) -> Orders\n' +
        '  field amount: added, type (none) -> number, nativeDataType (none) -> decimal(12,2), description (none) -> What the customer paid\n' +
        '  field note: added, type (none) -> string, nativeDataType (none) -> string\n' +
        `  ${fieldUrn(described, 'note')}\n` +
        '    ds.text: (none) -> free\n' +
        `${other} (new)\n` +
        `${both}: 2 datasets are valid; 2 would be created, 0 updated and 0 left as they are; 1 property would change on 1 of 1 entities (merge: properties the file does not name are kept). Nothing was written (dry run).\n`,
    );
    expect(await exists(described)).toBe(false);
    expect(await exists(other)).toBe(false);
  });

  it("writes the description, the name and the fields' types, native types and descriptions; dataset get prints them back", async () => {
    const result = await cli(['dataset', 'upsert', '-f', yamlFile('described.yaml', file)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(await aspectOf(described, 'datasetProperties')).toEqual({ name: 'Orders', description: 'Orders placed in the shop' });
    expect((await aspectOf(described, 'schemaMetadata'))?.fields).toEqual([
      { fieldPath: 'amount', type: { type: { 'com.linkedin.schema.NumberType': {} } }, nativeDataType: 'decimal(12,2)', description: 'What the customer paid' },
      { fieldPath: 'note', type: { type: { 'com.linkedin.schema.StringType': {} } }, nativeDataType: 'string' },
    ]);
    const got = JSON.parse((await cli(['dataset', 'get', '--urn', described])).stdout);
    expect(got).toMatchObject({ name: 'Orders', description: 'Orders placed in the shop' });
    expect(got.schema.fields).toEqual([
      { id: 'amount', urn: fieldUrn(described, 'amount'), type: 'number', nativeDataType: 'decimal(12,2)', description: 'What the customer paid' },
      { id: 'note', urn: fieldUrn(described, 'note'), type: 'string', structured_properties: { 'ds.text': 'free' } },
    ]);
  });

  it('a later file that names only values keeps the description and the field facts, and its dry run says what it leaves', async () => {
    const later = yamlFile('described-later.yaml', `- id: described.orders
  platform: hive
  schema:
    fields:
      - id: amount
        description: Paid, taxes included
`);
    const dry = await cli(['dataset', 'upsert', '--dry-run', '-f', later]);
    expect(dry.stdout).toBe(
      `${described}\n  field amount: description What the customer paid -> Paid, taxes included\n` +
        `${later}: 1 dataset is valid; 0 would be created, 1 updated and 0 left as they are; 0 properties would change on 0 of 0 entities (merge: properties the file does not name are kept). Nothing was written (dry run).\n`,
    );
    expect((await cli(['dataset', 'upsert', '-f', later])).code).toBe(0);
    expect(await aspectOf(described, 'datasetProperties')).toEqual({ name: 'Orders', description: 'Orders placed in the shop' });
    expect((await aspectOf(described, 'schemaMetadata'))?.fields).toEqual([
      { fieldPath: 'amount', type: { type: { 'com.linkedin.schema.NumberType': {} } }, nativeDataType: 'decimal(12,2)', description: 'Paid, taxes included' },
      { fieldPath: 'note', type: { type: { 'com.linkedin.schema.StringType': {} } }, nativeDataType: 'string' },
    ]);
    const unchanged = await cli(['dataset', 'upsert', '--dry-run', '-f', later]);
    expect(unchanged.stdout).toBe(`${later}: 1 dataset is valid; 0 would be created, 0 updated and 1 left as they are; 0 properties would change on 0 of 0 entities (merge: properties the file does not name are kept). Nothing was written (dry run).\n`);
  });

  it('an unknown field type is refused with the types to use, and nothing is written', async () => {
    const stderr = await rejectedFile('bad-type.yaml', `- id: bad.type
  platform: hive
  schema:
    fields:
      - id: a
        type: strng
`);
    expect(stderr).toContain("bad-type.yaml:6: entry 1 (id: bad.type): schema.fields[0].type: 'strng' is not a field type; use one of string, number,");
    expect(stderr).toContain("(did you mean 'string'?)");
    expect(await exists(hiveUrn('bad.type'))).toBe(false);
  });

  it('writes 1,200 datasets with a valued field each in batches: 3 requests for the datasets and 3 for the fields, not one per dataset', async () => {
    const count = 1200;
    const lines = Array.from(
      { length: count },
      (_, i) => `- id: bulk.t${i}\n  platform: hive\n  description: table ${i}\n  structured_properties: {ds.level: ${1 + (i % 3)}}\n  schema: {fields: [{id: c, type: int, structured_properties: {ds.text: v${i}}}]}\n`,
    );
    const patches = async () => requestsOf(await http(server.url, 'GET', '/metrics'), 'PATCH');
    const before = await patches();
    const result = await cli(['dataset', 'upsert', '-f', yamlFile('bulk.yaml', lines.join(''))]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.match(/^Update succeeded for urn /gm)).toHaveLength(count);
    expect((await patches()) - before).toBe(6);
    expect(await aspectOf(hiveUrn('bulk.t1199'), 'datasetProperties')).toEqual({ description: 'table 1199' });
    expect((await propertiesOf('schemaField', fieldUrn(hiveUrn('bulk.t1199'), 'c'))).properties).toEqual([{ propertyUrn: 'urn:li:structuredProperty:ds.text', values: [{ string: 'v1199' }] }]);
  }, 180_000);
});

describe('dataset upsert: forms and typing', () => {
  it('types scalars by the definition: numbers stay as written for string properties, numeric strings become doubles', async () => {
    const urn = hiveUrn('typing.table');
    const result = await cli(['dataset', 'upsert', '-f', yamlFile('typing.yaml', `- id: typing.table\n  platform: hive\n  structured_properties:\n    ds.single: 1.50\n    ds.text: [90, yes, "x y"]\n    ds.level: "2"\n`)]);
    expect(result.code).toBe(0);
    expect((await propertiesOf('dataset', urn)).properties).toEqual([
      { propertyUrn: 'urn:li:structuredProperty:ds.single', values: [{ string: '1.50' }] },
      { propertyUrn: 'urn:li:structuredProperty:ds.text', values: [{ string: '90' }, { string: 'yes' }, { string: 'x y' }] },
      { propertyUrn: 'urn:li:structuredProperty:ds.level', values: [{ double: 2 }] },
    ]);
  });

  it('takes a dataset urn, field urns, property urns as keys and an env', async () => {
    const dev = hiveUrn('forms.table', 'DEV');
    const text = `- urn: ${dev}
  schema:
    fields:
      - urn: ${fieldUrn(dev, 'a.b')}
        structured_properties:
          urn:li:structuredProperty:ds.text: hello
- id: forms.other
  platform: urn:li:dataPlatform:snowflake
  env: qa
  structured_properties:
    ds.single: hi
`;
    const result = await cli(['dataset', 'upsert', '-f', yamlFile('forms.yaml', text)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `Update succeeded for urn ${dev}.\nUpdate succeeded for urn urn:li:dataset:(urn:li:dataPlatform:snowflake,forms.other,QA).\n2 written, 0 failed, merged: properties the file does not name were kept (--replace replaces them)\n`,
    );
    expect((await propertiesOf('schemaField', fieldUrn(dev, 'a.b'))).properties).toEqual([{ propertyUrn: 'urn:li:structuredProperty:ds.text', values: [{ string: 'hello' }] }]);
    const got = JSON.parse((await cli(['dataset', 'get', '--urn', dev])).stdout);
    expect(got.schema.fields).toEqual([{ id: 'a.b', urn: fieldUrn(dev, 'a.b'), structured_properties: { 'ds.text': 'hello' } }]);
  });

  it('--dry-run checks values against the definitions and writes nothing', async () => {
    const file = yamlFile('dry-ds.yaml', `- id: dry.table\n  platform: hive\n  structured_properties:\n    ds.level: 3\n`);
    const result = await cli(['dataset', 'upsert', '-f', file, '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `${hiveUrn('dry.table')} (new)\n  ds.level: (none) -> 3\n${file}: 1 dataset is valid; 1 would be created, 0 updated and 0 left as they are; 1 property would change on 1 of 1 entities (merge: properties the file does not name are kept). Nothing was written (dry run).\n`,
    );
    expect(await exists(hiveUrn('dry.table'))).toBe(false);
  });

  it('--atomic writes dataset-level properties of every dataset in one transaction, and refuses field-level ones', async () => {
    const ok = await cli(['dataset', 'upsert', '--atomic', '-f', yamlFile('atomic-ds.yaml', `- {id: atomic.a, platform: hive, structured_properties: {ds.level: 1}}\n- {id: atomic.b, platform: hive, structured_properties: {ds.level: 2}}\n`)]);
    expect(ok.code).toBe(0);
    expect(await exists(hiveUrn('atomic.b'))).toBe(true);
    const refused = await cli(['dataset', 'upsert', '--atomic', '-f', yamlFile('atomic-fields.yaml', `- id: atomic.c\n  platform: hive\n  schema: {fields: [{id: f, structured_properties: {ds.text: x}}]}\n`)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--atomic cannot cover field-level structured_properties');
    expect(await exists(hiveUrn('atomic.c'))).toBe(false);
  });

  it('dataset get says when the dataset does not exist, and rejects what is not a dataset urn', async () => {
    const missing = await cli(['dataset', 'get', '--urn', hiveUrn('no.such.table')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`Dataset ${hiveUrn('no.such.table')} does not exist`);
    const wrong = await cli(['dataset', 'get', '--urn', 'urn:li:structuredProperty:ds.text']);
    expect(wrong.code).toBe(2);
  });
});

describe('dataset upsert: errors name the file, entry, field and reason, exit 2, write nothing', () => {
  async function rejected(name: string, text: string): Promise<string> {
    const result = await cli(['dataset', 'upsert', '-f', yamlFile(name, text)]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/nothing was written\.\n$/);
    return result.stderr;
  }

  it('values that break the definitions: unknown or soft-deleted property, wrong type, too many values, not allowed, wrong entity type', async () => {
    const stderr = await rejected(
      'values.yaml',
      `- id: ok.before
  platform: hive
  structured_properties:
    ds.single: fine
- id: bad.values
  platform: hive
  structured_properties:
    no.such.property: 1
    ds.gone: x
    io.acryl.dataManagement.replicationSLA: soon
    ds.single: [a, b]
    ds.level: 7
  schema:
    fields:
      - id: col
        structured_properties:
          ds.single: x
`,
    );
    expect(stderr).toContain('values.yaml:8: entry 2 (id: bad.values): structured_properties.no.such.property: structured property urn:li:structuredProperty:no.such.property does not exist');
    expect(stderr).toContain('values.yaml:9: entry 2 (id: bad.values): structured_properties.ds.gone: Cannot apply a soft deleted Structured Property value: urn:li:structuredProperty:ds.gone');
    expect(stderr).toContain(
      'values.yaml:10: entry 2 (id: bad.values): structured_properties.io.acryl.dataManagement.replicationSLA: Property: urn:li:structuredProperty:io.acryl.dataManagement.replicationSLA, value: {string=soon} should be a number',
    );
    expect(stderr).toContain('values.yaml:11: entry 2 (id: bad.values): structured_properties.ds.single: Property: urn:li:structuredProperty:ds.single has cardinality SINGLE, but 2 values were given');
    expect(stderr).toContain('values.yaml:12: entry 2 (id: bad.values): structured_properties.ds.level: Property: urn:li:structuredProperty:ds.level, value: {double=7.0} should be one of [{double=1.0}, {double=2.0}, {double=3.0}]');
    expect(stderr).toContain('values.yaml:17: entry 2 (id: bad.values): schema.fields[0].structured_properties.ds.single: Property: urn:li:structuredProperty:ds.single cannot be applied to entity type schemaField');
    expect(stderr).toMatch(/\n6 errors in \S*values\.yaml; nothing was written\.\n$/);
    expect(await exists(hiveUrn('ok.before'))).toBe(false);
    expect(await exists(hiveUrn('bad.values'))).toBe(false);
  });

  it('shape errors: typos, missing platform, bad env, foreign field urns, nested values', async () => {
    const stderr = await rejected(
      'shape.yaml',
      `- id: shape.one
  platfrom: hive
- id: shape.two
  platform: hive
  env: prdo
- id: shape.three
  platform: hive
  schema:
    fields:
      - urn: ${fieldUrn(hiveUrn('other.table'), 'x')}
      - id: y
        structured_propertes: {ds.text: a}
      - id: z
        structured_properties:
          ds.text: {nested: map}
`,
    );
    expect(stderr).toContain("shape.yaml:2: entry 1 (id: shape.one): platfrom: is not a known field; did you mean 'platform'?");
    expect(stderr).toContain('shape.yaml:1: entry 1 (id: shape.one): platform: is required when urn is not given');
    expect(stderr).toContain("shape.yaml:5: entry 2 (id: shape.two): env: 'prdo' is not an environment; use one of PROD,");
    expect(stderr).toContain("(did you mean 'PROD'?)");
    expect(stderr).toContain(`shape.yaml:10: entry 3 (id: shape.three): schema.fields[0].urn: belongs to ${hiveUrn('other.table')}, not to this dataset ${hiveUrn('shape.three')}`);
    expect(stderr).toContain("shape.yaml:12: entry 3 (id: shape.three): schema.fields[1].structured_propertes: is not a known field; did you mean 'structured_properties'?");
    expect(stderr).toContain('shape.yaml:15: entry 3 (id: shape.three): schema.fields[2].structured_properties.ds.text: must be a plain value or a list of plain values, not a mapping');
  });
});
