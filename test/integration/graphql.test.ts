/**
 * The GraphQL interface (docs/contract.md §8): every structured property mutation and
 * query through HTTP, with DataHub's types and shapes, its error codes and the input
 * paths errors name. The rules behind them are the services' (test/services/), the
 * same for REST and GraphQL; this suite keeps one success and one refusal per
 * operation, and what only GraphQL does.
 */
import { DEFAULT_QUERY_LIMITS } from '../../src/graphql/limits.js';
import { enc, http } from '../support/http.js';
import { graphql } from '../support/graphql.js';
import { createDatasets, datasetUrnOf, getProperties, softDelete, V3 } from '../support/fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let url: string;

beforeAll(async () => {
  server = await startTestServer();
  url = server.url;
});
afterAll(async () => {
  await server.stop();
});

const CREATE = `mutation create($input: CreateStructuredPropertyInput!) {
  createStructuredProperty(input: $input) {
    urn type exists
    definition {
      qualifiedName displayName description cardinality immutable version
      valueType { urn type info { type qualifiedName } }
      entityTypes { urn type info { type qualifiedName } }
      allowedValues { value { ... on StringValue { stringValue } ... on NumberValue { numberValue } } description }
    }
  }
}`;

const UPSERT = `mutation upsert($input: UpsertStructuredPropertiesInput!) {
  upsertStructuredProperties(input: $input) {
    properties { structuredProperty { urn } values { ... on StringValue { stringValue } ... on NumberValue { numberValue } } associatedUrn }
  }
}`;

const REMOVE = `mutation remove($input: RemoveStructuredPropertiesInput!) {
  removeStructuredProperties(input: $input) { properties { structuredProperty { urn } } }
}`;

const DATASET = `query ds($urn: String!) {
  dataset(urn: $urn) {
    urn type name origin platform { urn name }
    structuredProperties {
      properties {
        structuredProperty { urn type definition { displayName description allowedValues { description } } }
        values { ... on StringValue { stringValue } ... on NumberValue { numberValue } }
        valueEntities { urn type }
        associatedUrn
      }
    }
  }
}`;

let seq = 0;
function unique(prefix: string): string {
  return `${prefix}.${++seq}.${Date.now().toString(36)}`;
}

async function createNumberProperty(overrides: Record<string, unknown> = {}) {
  const id = unique('io.test.retention');
  const res = await graphql(url, CREATE, {
    input: {
      id,
      displayName: 'Retention',
      description: 'Days to retain',
      valueType: 'urn:li:dataType:number',
      cardinality: 'MULTIPLE',
      entityTypes: ['urn:li:entityType:dataset', 'urn:li:entityType:dataFlow'],
      allowedValues: [
        { numberValue: 30, description: '30 days' },
        { numberValue: 60, description: '60 days' },
        { numberValue: 410258.29, description: 'odd' },
      ],
      ...overrides,
    },
  });
  return { id, urn: `urn:li:structuredProperty:${id}`, res };
}

async function newDataset(): Promise<string> {
  const urn = datasetUrnOf(unique('db.table'));
  await createDatasets(url, [urn]);
  return urn;
}

describe('createStructuredProperty', () => {
  test('accepts short-form type urns and returns canonical svc urns with the definition', async () => {
    const { urn, id, res } = await createNumberProperty();
    expect(res.errors).toBeUndefined();
    const created = res.data.createStructuredProperty;
    expect(created.urn).toBe(urn);
    expect(created.type).toBe('STRUCTURED_PROPERTY');
    expect(created.exists).toBe(true);
    expect(created.definition).toEqual({
      qualifiedName: id,
      displayName: 'Retention',
      description: 'Days to retain',
      cardinality: 'MULTIPLE',
      immutable: false,
      version: null,
      valueType: { urn: 'urn:li:dataType:svc.number', type: 'DATA_TYPE', info: { type: 'NUMBER', qualifiedName: 'svc.number' } },
      entityTypes: [
        { urn: 'urn:li:entityType:svc.dataset', type: 'ENTITY_TYPE', info: { type: 'DATASET', qualifiedName: 'svc.dataset' } },
        { urn: 'urn:li:entityType:svc.dataFlow', type: 'ENTITY_TYPE', info: { type: 'DATA_FLOW', qualifiedName: 'svc.dataFlow' } },
      ],
      allowedValues: [
        { value: { numberValue: 30 }, description: '30 days' },
        { value: { numberValue: 60 }, description: '60 days' },
        { value: { numberValue: 410258.29 }, description: 'odd' },
      ],
    });
  });

  test('rejects creating a property that already exists, pointing to updateStructuredProperty', async () => {
    const { id } = await createNumberProperty();
    const again = await createNumberProperty({ id });
    expect(again.res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(again.res.errors?.[0]?.message).toBe(
      'Cannot perform CREATE since the aspect already exists. The structured property exists: change it with updateStructuredProperty (or delete it first).',
    );
  });

  test('rejects an unknown value type with the same message as REST', async () => {
    const res = await graphql(url, CREATE, { input: { id: unique('x.y'), valueType: 'urn:li:dataType:datahub.DOEST_NOT_EXIST', entityTypes: ['urn:li:entityType:dataset'] } });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const rest = await http(url, 'POST', `${V3}/entity/structuredProperty/${enc('urn:li:structuredProperty:x.rest')}/propertyDefinition`, {
      json: { value: { qualifiedName: 'x.rest', valueType: 'urn:li:dataType:datahub.DOEST_NOT_EXIST', entityTypes: ['urn:li:entityType:dataset'] } },
    });
    expect(rest.status).toBe(400);
    expect(res.errors?.[0]?.message).toBe(rest.body.message);
  });

});

describe('updateStructuredProperty', () => {
  const UPDATE = `mutation update($input: UpdateStructuredPropertyInput!) {
    updateStructuredProperty(input: $input) {
      urn
      definition { displayName description cardinality allowedValues { value { ... on NumberValue { numberValue } } description } entityTypes { urn } }
    }
  }`;

  test('changes text fields and appends allowed values, entity types and MULTIPLE cardinality', async () => {
    const { urn } = await createNumberProperty({ cardinality: 'SINGLE', entityTypes: ['urn:li:entityType:dataset'] });
    const res = await graphql(url, UPDATE, {
      input: {
        urn,
        displayName: 'Retention (days)',
        description: 'new text',
        newAllowedValues: [{ numberValue: 90, description: '90 days' }],
        newEntityTypes: ['urn:li:entityType:dataJob'],
        setCardinalityAsMultiple: true,
      },
    });
    expect(res.errors).toBeUndefined();
    const def = res.data.updateStructuredProperty.definition;
    expect(def.displayName).toBe('Retention (days)');
    expect(def.description).toBe('new text');
    expect(def.cardinality).toBe('MULTIPLE');
    expect(def.allowedValues.map((a: any) => a.value.numberValue)).toEqual([30, 60, 410258.29, 90]);
    expect(def.entityTypes.map((e: any) => e.urn)).toEqual(['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.dataJob']);
  });

  test('reports NOT_FOUND for a property that does not exist', async () => {
    const res = await graphql(url, UPDATE, { input: { urn: 'urn:li:structuredProperty:does.not.exist', description: 'x' } });
    expect(res.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

describe('upsertStructuredProperties and removeStructuredProperties', () => {
  test('upsert sets new properties and replaces named ones, keeping the others (merge)', async () => {
    const retention = await createNumberProperty();
    const owner = await graphql(url, CREATE, { input: { id: unique('io.test.owner'), valueType: 'urn:li:dataType:string', entityTypes: ['urn:li:entityType:dataset'] } });
    const ownerUrn = owner.data.createStructuredProperty.urn;
    const dataset = await newDataset();

    const first = await graphql(url, UPSERT, { input: { assetUrn: dataset, structuredPropertyInputParams: [{ structuredPropertyUrn: retention.urn, values: [{ numberValue: 30 }] }] } });
    expect(first.errors).toBeUndefined();
    const second = await graphql(url, UPSERT, { input: { assetUrn: dataset, structuredPropertyInputParams: [{ structuredPropertyUrn: ownerUrn, values: [{ stringValue: 'team-a' }] }] } });
    expect(second.errors).toBeUndefined();
    expect(second.data.upsertStructuredProperties.properties).toEqual([
      { structuredProperty: { urn: retention.urn }, values: [{ numberValue: 30 }], associatedUrn: dataset },
      { structuredProperty: { urn: ownerUrn }, values: [{ stringValue: 'team-a' }], associatedUrn: dataset },
    ]);
    const third = await graphql(url, UPSERT, { input: { assetUrn: dataset, structuredPropertyInputParams: [{ structuredPropertyUrn: retention.urn, values: [{ numberValue: 60 }, { numberValue: 30 }] }] } });
    expect(third.data.upsertStructuredProperties.properties[0].values).toEqual([{ numberValue: 60 }, { numberValue: 30 }]);
    expect(third.data.upsertStructuredProperties.properties).toHaveLength(2);
  });

  test('remove drops the named properties and keeps the rest', async () => {
    const a = await createNumberProperty();
    const b = await createNumberProperty();
    const dataset = await newDataset();
    await graphql(url, UPSERT, {
      input: { assetUrn: dataset, structuredPropertyInputParams: [{ structuredPropertyUrn: a.urn, values: [{ numberValue: 30 }] }, { structuredPropertyUrn: b.urn, values: [{ numberValue: 60 }] }] },
    });
    const res = await graphql(url, REMOVE, { input: { assetUrn: dataset, structuredPropertyUrns: [a.urn] } });
    expect(res.errors).toBeUndefined();
    expect(res.data.removeStructuredProperties.properties).toEqual([{ structuredProperty: { urn: b.urn } }]);
    const rest = await getProperties(url, dataset);
    expect(rest.body.structuredProperties.value.properties.map((p: any) => p.propertyUrn)).toEqual([b.urn]);
  });

  test('upsert rejects a soft-deleted property', async () => {
    const { urn } = await createNumberProperty();
    const dataset = await newDataset();
    await softDelete(url, urn);
    const res = await graphql(url, UPSERT, { input: { assetUrn: dataset, structuredPropertyInputParams: [{ structuredPropertyUrn: urn, values: [{ numberValue: 30 }] }] } });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toBe(`structuredPropertyInputParams[0].structuredPropertyUrn: Cannot apply a soft deleted Structured Property value: ${urn}`);
    expect(res.errors?.[0]?.extensions?.field).toBe('structuredPropertyInputParams[0].structuredPropertyUrn');
  });

  test('errors name the GraphQL input path, zero-based, not the aspect path', async () => {
    const { urn } = await createNumberProperty();
    const other = await createNumberProperty();
    const dataset = await newDataset();
    const params = (second: unknown[]) => [
      { structuredPropertyUrn: urn, values: [{ numberValue: 30 }] },
      { structuredPropertyUrn: other.urn, values: second },
    ];
    const badValue = await graphql(url, UPSERT, { input: { assetUrn: dataset, structuredPropertyInputParams: params([{ stringValue: 'thirty' }]) } });
    expect(badValue.errors?.[0]?.message).toBe(`structuredPropertyInputParams[1].values: Property: ${other.urn}, value: {string=thirty} should be a number`);
    expect(badValue.errors?.[0]?.extensions?.field).toBe('structuredPropertyInputParams[1].values');
    const tooLong = await graphql(url, UPSERT, { input: { assetUrn: dataset, structuredPropertyInputParams: params([{ stringValue: 'x'.repeat(100_001) }]) } });
    expect(tooLong.errors?.[0]?.message).toBe('structuredPropertyInputParams[1].values[0].stringValue is longer than the limit of 100000 characters');
    const notAProperty = await graphql(url, UPSERT, {
      input: { assetUrn: dataset, structuredPropertyInputParams: [{ structuredPropertyUrn: 'urn:li:tag:pii', values: [{ numberValue: 1 }] }] },
    });
    expect(notAProperty.errors?.[0]?.message).toBe(
      'structuredPropertyInputParams[0].structuredPropertyUrn "urn:li:tag:pii" is not a structured property urn; write urn:li:structuredProperty:<qualified name>',
    );
    expect((await getProperties(url, dataset)).status).toBe(404);
  });

  test('a lone surrogate or U+0000 in a variable or an inline argument is refused naming its path, and nothing is stored', async () => {
    const dataset = await newDataset();
    const { urn } = await createNumberProperty();
    const inVariable = await graphql(url, CREATE, { input: { id: unique('sur.var'), valueType: 'urn:li:dataType:string', entityTypes: ['urn:li:entityType:dataset'], description: 'x\ud800' } });
    expect(inVariable.status).toBe(400);
    expect(inVariable.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(inVariable.errors?.[0]?.message).toMatch(/^variables\.input\.description contains a lone UTF-16 surrogate U\+D800/);
    const inline = await graphql(
      url,
      `mutation { upsertStructuredProperties(input: {assetUrn: "${dataset}", structuredPropertyInputParams: [{structuredPropertyUrn: "${urn}", values: [{stringValue: "a\\u0000b"}]}]}) { properties { associatedUrn } } }`,
    );
    expect(inline.status).toBe(400);
    expect(inline.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(inline.errors?.[0]?.message).toMatch(/^argument input\.structuredPropertyInputParams\[0\]\.values\[0\]\.stringValue contains the character U\+0000/);
    const viaGet = await http(url, 'GET', '/api/graphql', {
      query: { query: 'query q($u: String!) { dataset(urn: $u) { urn } }', variables: JSON.stringify({ u: 'urn:li:dataset:(urn:li:dataPlatform:hive,x\u0000,PROD)' }) },
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(viaGet.status).toBe(400);
    expect(viaGet.body.errors[0].message).toMatch(/^variable \$u contains the character U\+0000/);
    expect((await getProperties(url, dataset)).status).toBe(404);
  });

  test('an invalid asset urn is BAD_USER_INPUT naming the urn', async () => {
    const res = await graphql(url, UPSERT, { input: { assetUrn: 'urn:li:dataset:(broken', structuredPropertyInputParams: [] } });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toMatch(/^Invalid urn!: urn:li:dataset:\(broken/);
  });
});

describe('queries', () => {
  test('dataset(urn) returns the structured properties with definitions, values and the associated urn', async () => {
    const retention = await createNumberProperty();
    const dataset = await newDataset();
    await graphql(url, UPSERT, { input: { assetUrn: dataset, structuredPropertyInputParams: [{ structuredPropertyUrn: retention.urn, values: [{ numberValue: 60 }] }] } });
    const res = await graphql(url, DATASET, { urn: dataset });
    expect(res.errors).toBeUndefined();
    expect(res.data.dataset).toMatchObject({ urn: dataset, type: 'DATASET', origin: 'PROD', platform: { urn: 'urn:li:dataPlatform:hive', name: 'hive' } });
    expect(res.data.dataset.structuredProperties.properties).toEqual([
      {
        structuredProperty: {
          urn: retention.urn,
          type: 'STRUCTURED_PROPERTY',
          definition: { displayName: 'Retention', description: 'Days to retain', allowedValues: [{ description: '30 days' }, { description: '60 days' }, { description: 'odd' }] },
        },
        values: [{ numberValue: 60 }],
        valueEntities: null,
        associatedUrn: dataset,
      },
    ]);
  });

  test('valueEntities resolves the entities named by an urn-typed property', async () => {
    const id = unique('io.test.steward');
    const created = await graphql(url, CREATE, { input: { id, valueType: 'urn:li:dataType:urn', entityTypes: ['urn:li:entityType:dataset'] } });
    expect(created.errors).toBeUndefined();
    const dataset = await newDataset();
    const res = await graphql(url, UPSERT, {
      input: { assetUrn: dataset, structuredPropertyInputParams: [{ structuredPropertyUrn: `urn:li:structuredProperty:${id}`, values: [{ stringValue: 'urn:li:corpuser:jdoe' }] }] },
    });
    expect(res.errors).toBeUndefined();
    const read = await graphql(url, DATASET, { urn: dataset });
    expect(read.data.dataset.structuredProperties.properties[0].valueEntities).toEqual([{ urn: 'urn:li:corpuser:jdoe', type: 'CORP_USER' }]);
  });

  test('dataset(urn) is null for a dataset that does not exist', async () => {
    const res = await graphql(url, DATASET, { urn: datasetUrnOf('missing.table') });
    expect(res.errors).toBeUndefined();
    expect(res.data.dataset).toBeNull();
  });

  test('structuredProperty(urn) and entity(urn) resolve properties and built-in types', async () => {
    const { urn } = await createNumberProperty();
    const res = await graphql(
      url,
      `query q($urn: String!) {
        structuredProperty(urn: $urn) { urn definition { qualifiedName } }
        prop: entity(urn: $urn) { urn type }
        dt: entity(urn: "urn:li:dataType:svc.string") { urn type ... on DataTypeEntity { info { type } } }
        missing: structuredProperty(urn: "urn:li:structuredProperty:nope") { urn }
      }`,
      { urn },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.structuredProperty.urn).toBe(urn);
    expect(res.data.prop).toEqual({ urn, type: 'STRUCTURED_PROPERTY' });
    expect(res.data.dt).toEqual({ urn: 'urn:li:dataType:svc.string', type: 'DATA_TYPE', info: { type: 'STRING' } });
    expect(res.data.missing).toBeNull();
  });
});

describe('deleteStructuredProperty', () => {
  test('hard-deletes the definition at once and a job removes its values', async () => {
    const { urn } = await createNumberProperty();
    const dataset = await newDataset();
    await graphql(url, UPSERT, { input: { assetUrn: dataset, structuredPropertyInputParams: [{ structuredPropertyUrn: urn, values: [{ numberValue: 30 }] }] } });
    const res = await graphql(url, 'mutation d($urn: String!) { deleteStructuredProperty(input: {urn: $urn}) }', { urn });
    expect(res.data.deleteStructuredProperty).toBe(true);
    expect((await graphql(url, 'query q($urn: String!) { structuredProperty(urn: $urn) { urn } }', { urn })).data.structuredProperty).toBeNull();
    expect((await graphql(url, DATASET, { urn: dataset })).data.dataset.structuredProperties.properties).toEqual([]);
    expect((await http(url, 'GET', `${V3}/entity/structuredProperty/${enc(urn)}/propertyDefinition`)).status).toBe(404);
  });
});

describe('round trip', () => {
  test('410258.29 written through GraphQL reads back identical through GraphQL and REST', async () => {
    const { urn } = await createNumberProperty();
    const dataset = await newDataset();
    await graphql(url, UPSERT, { input: { assetUrn: dataset, structuredPropertyInputParams: [{ structuredPropertyUrn: urn, values: [{ numberValue: 410258.29 }] }] } });
    const viaGraphql = await graphql(url, DATASET, { urn: dataset });
    expect(viaGraphql.data.dataset.structuredProperties.properties[0].values).toEqual([{ numberValue: 410258.29 }]);
    const viaRest = await getProperties(url, dataset);
    expect(viaRest.text).toContain('{"double":410258.29}');
  });
});

describe('hardening', () => {
  test('errors carry no stack trace', async () => {
    const res = await graphql(url, UPSERT, { input: { assetUrn: 'bad', structuredPropertyInputParams: [] } });
    expect(JSON.stringify(res.errors)).not.toMatch(/stacktrace|at .*\.ts:\d+/);
  });

  test('a GET query without a preflight header is refused by CSRF prevention', async () => {
    const res = await fetch(`${url}/api/graphql?query=${encodeURIComponent('{ __typename }')}`);
    expect(res.status).toBe(400);
  });

  test('queries deeper than the limit are rejected before execution, with the limit named', async () => {
    // valueEntities lets a query recurse: each level adds three to the depth.
    const nest = (levels: number): string =>
      levels === 0 ? 'urn' : `... on GenericEntity { structuredProperties { properties { valueEntities { ${nest(levels - 1)} } } } }`;
    const shallow = await graphql(url, `{ entity(urn: "urn:li:tag:x") { ${nest(7)} } }`);
    expect(shallow.errors).toBeUndefined();
    const deep = await graphql(url, `{ entity(urn: "urn:li:tag:x") { ${nest(9)} } }`);
    expect(deep.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(deep.errors?.[0]?.message).toMatch(new RegExp(`exceeds the limit of ${DEFAULT_QUERY_LIMITS.maxDepth}`));
  });

  test('more aliases than the limit are rejected with the limit named', async () => {
    const aliases = Array.from({ length: 60 }, (_, i) => `a${i}: __typename`).join(' ');
    const res = await graphql(url, `{ ${aliases} }`);
    expect(res.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(res.errors?.[0]?.message).toMatch(/limit of 50 aliases/);
  });
});

describe('endpoint', () => {
  test('the subgraph is also served at /graphql', async () => {
    const res = await graphql(url, '{ __typename }', undefined, '/graphql');
    expect(res.data).toEqual({ __typename: 'Query' });
  });

  test('a GraphQL request body over 1 MiB is refused with 413', async () => {
    const res = await http(url, 'POST', '/api/graphql', { json: { query: `{ __typename } # ${'x'.repeat(1_100_000)}` } });
    expect(res.status).toBe(413);
  });
});
