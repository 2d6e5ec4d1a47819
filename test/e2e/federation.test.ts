/**
 * propgraph as a federation subgraph: a real @apollo/gateway composes it (from its
 * `_service { sdl }`), and mutations and queries go through the gateway; `_entities`
 * resolves Dataset and StructuredPropertyEntity references by urn.
 */
import { ApolloGateway, IntrospectAndCompose } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { graphql } from '../support/graphql.js';
import { createDatasets, datasetUrnOf } from '../support/fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

let subgraph: TestServer;
let gatewayServer: ApolloServer;
let gatewayUrl: string;

beforeAll(async () => {
  subgraph = await startTestServer();
  const gateway = new ApolloGateway({
    supergraphSdl: new IntrospectAndCompose({ subgraphs: [{ name: 'propgraph', url: `${subgraph.url}/api/graphql` }] }),
  });
  gatewayServer = new ApolloServer({ gateway });
  const { url } = await startStandaloneServer(gatewayServer, { listen: { port: 0, host: '127.0.0.1' } });
  gatewayUrl = url.replace(/\/$/, '');
});

afterAll(async () => {
  await gatewayServer.stop();
  await subgraph.stop();
});

test('the subgraph publishes its SDL with federation keys on Dataset, StructuredPropertyEntity and Test', async () => {
  const res = await graphql(subgraph.url, '{ _service { sdl } }');
  const sdl: string = res.data._service.sdl;
  expect(sdl).toMatch(/type Dataset implements Entity\s+@key\(fields: "urn"\)/);
  expect(sdl).toMatch(/type StructuredPropertyEntity implements Entity\s+@key\(fields: "urn"\)/);
  expect(sdl).toMatch(/type Test implements Entity\s+@key\(fields: "urn"\)/);
});

test('a mutation and a dataset query through the gateway create, set and read structured properties', async () => {
  const dataset = datasetUrnOf('gateway.orders');
  await createDatasets(subgraph.url, [dataset]);
  const created = await graphql(
    gatewayUrl,
    `mutation { createStructuredProperty(input: {id: "io.gateway.tier", valueType: "urn:li:dataType:string", entityTypes: ["urn:li:entityType:dataset"], allowedValues: [{stringValue: "gold"}, {stringValue: "silver"}]}) { urn } }`,
    undefined,
    '/',
  );
  expect(created.errors).toBeUndefined();
  expect(created.data.createStructuredProperty.urn).toBe('urn:li:structuredProperty:io.gateway.tier');

  const upserted = await graphql(
    gatewayUrl,
    `mutation u($asset: String!) { upsertStructuredProperties(input: {assetUrn: $asset, structuredPropertyInputParams: [{structuredPropertyUrn: "urn:li:structuredProperty:io.gateway.tier", values: [{stringValue: "gold"}]}]}) { properties { structuredProperty { urn } } } }`,
    { asset: dataset },
    '/',
  );
  expect(upserted.errors).toBeUndefined();

  const read = await graphql(
    gatewayUrl,
    `query q($urn: String!) { dataset(urn: $urn) { urn name structuredProperties { properties { structuredProperty { urn definition { qualifiedName } } values { ... on StringValue { stringValue } } } } } }`,
    { urn: dataset },
    '/',
  );
  expect(read.errors).toBeUndefined();
  expect(read.data.dataset).toEqual({
    urn: dataset,
    name: 'gateway.orders',
    structuredProperties: {
      properties: [{ structuredProperty: { urn: 'urn:li:structuredProperty:io.gateway.tier', definition: { qualifiedName: 'io.gateway.tier' } }, values: [{ stringValue: 'gold' }] }],
    },
  });

  const rejected = await graphql(
    gatewayUrl,
    `mutation u($asset: String!) { upsertStructuredProperties(input: {assetUrn: $asset, structuredPropertyInputParams: [{structuredPropertyUrn: "urn:li:structuredProperty:io.gateway.tier", values: [{stringValue: "bronze"}]}]}) { properties { structuredProperty { urn } } } }`,
    { asset: dataset },
    '/',
  );
  expect(rejected.errors?.[0]?.message).toMatch(/should be one of \[\{string=gold\}, \{string=silver\}\]/);
});

test('_entities resolves Dataset and StructuredPropertyEntity representations by urn', async () => {
  const dataset = datasetUrnOf('entities.orders');
  await createDatasets(subgraph.url, [dataset]);
  await graphql(subgraph.url, `mutation { createStructuredProperty(input: {id: "io.entities.size", valueType: "urn:li:dataType:number", entityTypes: ["urn:li:entityType:dataset"]}) { urn } }`);
  const res = await graphql(
    subgraph.url,
    `query e($reps: [_Any!]!) { _entities(representations: $reps) {
      ... on Dataset { urn name origin }
      ... on StructuredPropertyEntity { urn definition { qualifiedName valueType { urn } } }
    } }`,
    {
      reps: [
        { __typename: 'Dataset', urn: dataset },
        { __typename: 'StructuredPropertyEntity', urn: 'urn:li:structuredProperty:io.entities.size' },
        { __typename: 'Dataset', urn: datasetUrnOf('not.there') },
      ],
    },
  );
  expect(res.errors).toBeUndefined();
  expect(res.data._entities).toEqual([
    { urn: dataset, name: 'entities.orders', origin: 'PROD' },
    { urn: 'urn:li:structuredProperty:io.entities.size', definition: { qualifiedName: 'io.entities.size', valueType: { urn: 'urn:li:dataType:svc.number' } } },
    null,
  ]);
});
