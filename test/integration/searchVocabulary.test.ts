/**
 * The search vocabulary of docs/contract.md §12 and issue 15, through HTTP as a user touches it:
 * a keyword search over REST, definitions found over GraphQL and REST with the
 * soft-deleted ones brought back by searchFlags, facets with their display names,
 * definitions and allowed-value descriptions, and unknown properties named in the
 * caller's spelling. The vocabulary's rules (ranking, typos, key fields, default
 * facets) are the search service's, tested in test/services/search.test.ts.
 */
import { datasetUrn, defineProperty, propertyUrn, searchRest, setValues, V3 } from '../support/catalog.js';
import { graphql } from '../support/graphql.js';
import { enc, http } from '../support/http.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';

const SCROLL = `query s($input: ScrollAcrossEntitiesInput!) {
  scrollAcrossEntities(input: $input) { nextScrollId count total searchResults { entity { urn type } } }
}`;
const AGGREGATE = `query a($input: AggregateAcrossEntitiesInput!) {
  aggregateAcrossEntities(input: $input) { facets { field displayName entity { urn type } aggregations { value count description } } }
}`;

const CLICKS = datasetUrn('analytics.daily_clicks');
const ORDERS = datasetUrn('sales.orders', 'snowflake');
const VISITS = datasetUrn('web.visits');

(searchAvailableForTests() ? describe : describe.skip)('search vocabulary (docs/contract.md §12)', () => {
  let server: TestServer;
  let base: string;
  const urns = (res: { status?: number; text?: string; body: { entities: Array<{ urn: string }> } }) => {
    if (!res.body.entities) throw new Error(`HTTP ${res.status}: ${res.text}`);
    return res.body.entities.map((e) => e.urn).sort();
  };
  const scroll = async (input: Record<string, unknown>) => graphql(base, SCROLL, { input: { query: '*', count: 100, ...input } });
  const scrollUrns = async (input: Record<string, unknown>) => {
    const res = await scroll(input);
    expect(res.errors).toBeUndefined();
    return (res.data.scrollAcrossEntities.searchResults as Array<{ entity: { urn: string } }>).map((r) => r.entity.urn);
  };
  const post = async (path: string, value: unknown) => {
    const res = await http(base, 'POST', path, { query: { createIfNotExists: 'false' }, json: { value } });
    expect(res.status).toBe(200);
  };

  beforeAll(async () => {
    server = await startTestServer({ search: true });
    base = server.url;
    await post(`${V3}/entity/structuredProperty/${enc(propertyUrn('vocab.tier'))}/propertyDefinition`, {
      qualifiedName: 'vocab.tier',
      displayName: 'Retention tier',
      description: 'How long the data is kept',
      valueType: 'urn:li:dataType:svc.string',
      cardinality: 'SINGLE',
      entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.schemaField'],
      allowedValues: [{ value: { string: 'gold' }, description: 'Kept forever' }, { value: { string: 'silver' } }],
    });
    await post(`${V3}/entity/structuredProperty/${enc(propertyUrn('vocab.tier'))}/structuredPropertySettings`, { showInSearchFilters: true });
    await defineProperty(base, 'vocab.days', { valueType: 'number', cardinality: 'SINGLE' });
    await defineProperty(base, 'vocab.retired', { valueType: 'string' });
    await post(`${V3}/entity/structuredProperty/${enc(propertyUrn('vocab.retired'))}/status`, { removed: true });
    const created = await http(base, 'POST', `${V3}/entity/dataset`, {
      json: [
        { urn: CLICKS, status: { value: { removed: false } }, datasetProperties: { value: { name: 'Daily clicks', description: 'Clicks per day on the web shop' } } },
        { urn: ORDERS, status: { value: { removed: false } }, datasetProperties: { value: { description: 'Orders, with the clicks that led to them' } } },
        { urn: VISITS, status: { value: { removed: false } }, datasetProperties: { value: { description: 'Visits per session' } } },
      ],
    });
    expect(created.status).toBe(200);
    await setValues(base, CLICKS, { 'vocab.tier': ['gold'], 'vocab.days': [90] });
    await setValues(base, ORDERS, { 'vocab.tier': ['silver'] });
  });

  afterAll(async () => {
    await server?.stop();
  });

  describe('keyword search', () => {
    test('REST: a bare term finds names, display names and descriptions; with a typo too', async () => {
      expect(urns(await searchRest(base, 'clicks'))).toEqual([CLICKS, ORDERS].sort());
      expect(urns(await searchRest(base, 'clikcs'))).toEqual([CLICKS, ORDERS].sort());
      expect(urns(await searchRest(base, 'session'))).toEqual([VISITS]);
      expect(urns(await searchRest(base, 'nothing-like-this'))).toEqual([]);
    });
  });

  describe('definitions and schema fields are searchable', () => {
    test('STRUCTURED_PROPERTY by keyword (display name, description) and by value type and entity type', async () => {
      expect(await scrollUrns({ types: ['STRUCTURED_PROPERTY'], query: 'retention' })).toEqual([propertyUrn('vocab.tier')]);
      expect(await scrollUrns({ types: ['STRUCTURED_PROPERTY'], query: 'valueType:number' })).toEqual([propertyUrn('vocab.days')]);
      expect(await scrollUrns({ types: ['STRUCTURED_PROPERTY'], orFilters: [{ and: [{ field: 'valueType', values: ['urn:li:dataType:datahub.number'] }] }] })).toEqual([
        propertyUrn('vocab.days'),
      ]);
      expect(await scrollUrns({ types: ['STRUCTURED_PROPERTY'], orFilters: [{ and: [{ field: 'entityTypes', values: ['SCHEMA_FIELD'] }] }] })).toEqual([propertyUrn('vocab.tier')]);
    });

    test('soft-deleted definitions are left out unless the filter names removed or searchFlags ask for them', async () => {
      const live = await scrollUrns({ types: ['STRUCTURED_PROPERTY'] });
      expect(live.sort()).toEqual([propertyUrn('vocab.days'), propertyUrn('vocab.tier')].sort());
      expect(await scrollUrns({ types: ['STRUCTURED_PROPERTY'], query: 'removed:true' })).toEqual([propertyUrn('vocab.retired')]);
      expect((await scrollUrns({ types: ['STRUCTURED_PROPERTY'], searchFlags: { includeSoftDeleted: true } })).length).toBe(3);
      const rest = await http(base, 'GET', `${V3}/entity/structuredProperty`, { query: { query: 'removed:true' } });
      expect(urns(rest)).toEqual([propertyUrn('vocab.retired')]);
    });
  });

  describe('facets', () => {
    test('a property facet carries the display name, the definition, and allowed-value descriptions', async () => {
      const res = await graphql(base, AGGREGATE, { input: { types: ['DATASET'], query: '*', facets: ['structuredProperties.vocab.tier', 'platform'] } });
      expect(res.errors).toBeUndefined();
      expect(res.data.aggregateAcrossEntities.facets).toEqual([
        {
          field: 'structuredProperties.vocab.tier',
          displayName: 'Retention tier',
          entity: { urn: propertyUrn('vocab.tier'), type: 'STRUCTURED_PROPERTY' },
          aggregations: [
            { value: 'gold', count: 1, description: 'Kept forever' },
            { value: 'silver', count: 1, description: null },
          ],
        },
        {
          field: 'platform',
          displayName: 'Platform',
          entity: null,
          aggregations: [
            { value: 'urn:li:dataPlatform:hive', count: 2, description: null },
            { value: 'urn:li:dataPlatform:snowflake', count: 1, description: null },
          ],
        },
      ]);
    });
  });

  describe('a name that is no property is a 400 naming the closest existing one', () => {
    const closest = /closest existing one is structuredProperties\.vocab/;

    test('GraphQL filter and facet, in the caller spelling', async () => {
      const filtered = await scroll({ types: ['DATASET'], orFilters: [{ and: [{ field: 'structuredProperties.vocab.dayz', values: ['1'] }] }] });
      expect(filtered.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(filtered.errors?.[0]?.message).toMatch(/closest existing one is structuredProperties\.vocab\.days/);
      const faceted = await graphql(base, AGGREGATE, { input: { query: '*', facets: ['structuredProperties.vocab.tiers'] } });
      expect(faceted.errors?.[0]?.message).toMatch(closest);
    });
  });
});
