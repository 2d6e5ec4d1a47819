/**
 * The search vocabulary of docs/contract.md §12 and issue 15, through HTTP as a user touches it:
 * keyword search (REST and GraphQL, typo tolerant, ranked, combined with filters),
 * definitions and schema fields as searchable entities, forgiving key fields
 * (`platform:hive`, `name` by word), facets with display names and allowed-value
 * descriptions, default facets, unknown properties named with the closest name, and
 * soft-deleted tests left out of REST listings as of GraphQL's.
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
const FIELD = `urn:li:schemaField:(${CLICKS},customer_id)`;

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
    const field = await http(base, 'POST', `${V3}/entity/schemaField/${enc(FIELD)}/structuredProperties`, {
      query: { createIfNotExists: 'false' },
      json: { value: { properties: [{ propertyUrn: propertyUrn('vocab.tier'), values: [{ string: 'gold' }] }] } },
    });
    expect(field.status).toBe(200);
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

    test('REST: keywords combine with field filters by AND', async () => {
      expect(urns(await searchRest(base, 'clicks AND platform:snowflake'))).toEqual([ORDERS]);
      expect(urns(await searchRest(base, 'clicks AND structuredProperties.vocab_tier:gold'))).toEqual([CLICKS]);
      const mixed = await searchRest(base, 'clicks OR platform:hive');
      expect(mixed.status).toBe(400);
      expect(mixed.body.message).toMatch(/combined .* by AND/);
    });

    test('GraphQL: keywords rank a name match above a description match, and count every hit', async () => {
      const res = await scroll({ types: ['DATASET'], query: 'clicks' });
      expect(res.data.scrollAcrossEntities.total).toBe(2);
      expect(res.data.scrollAcrossEntities.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn)).toEqual([CLICKS, ORDERS]);
    });

    test('GraphQL: keyword pages continue where the last one ended', async () => {
      const first = await scroll({ types: ['DATASET'], query: 'clicks', count: 1 });
      expect(first.data.scrollAcrossEntities.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn)).toEqual([CLICKS]);
      const second = await scroll({ types: ['DATASET'], query: 'clicks', count: 1, scrollId: first.data.scrollAcrossEntities.nextScrollId });
      expect(second.data.scrollAcrossEntities.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn)).toEqual([ORDERS]);
      expect(second.data.scrollAcrossEntities.nextScrollId).toBeNull();
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

    test('SCHEMA_FIELD by keyword on the field path, and by its values', async () => {
      expect(await scrollUrns({ types: ['SCHEMA_FIELD'], query: 'customer' })).toEqual([FIELD]);
      expect(await scrollUrns({ types: ['SCHEMA_FIELD'], query: 'structuredProperties.vocab_tier:gold AND platform:hive' })).toEqual([FIELD]);
    });

    test('a search naming no types covers neither', async () => {
      const all = await scrollUrns({ types: [], query: 'structuredProperties.vocab_tier:gold' });
      expect(all).toEqual([CLICKS]);
    });
  });

  test('forgiving key fields: platform:hive is the platform urn; name matches a word of the name or the whole', async () => {
    expect(urns(await searchRest(base, 'platform:hive'))).toEqual([CLICKS, VISITS].sort());
    expect(urns(await searchRest(base, 'name:clicks'))).toEqual([CLICKS]);
    expect(urns(await searchRest(base, 'name:analytics.daily_clicks'))).toEqual([CLICKS]);
    expect(await scrollUrns({ types: ['DATASET'], orFilters: [{ and: [{ field: 'platform', values: ['snowflake'] }] }] })).toEqual([ORDERS]);
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

    test('without facets: entity type, platform and every property shown in search filters', async () => {
      const res = await graphql(base, AGGREGATE, { input: { query: '*' } });
      expect(res.errors).toBeUndefined();
      const facets = res.data.aggregateAcrossEntities.facets as Array<{ field: string; displayName: string; aggregations: Array<{ value: string; count: number }> }>;
      expect(facets.map((f) => f.field)).toEqual(['_entityType', 'platform', 'structuredProperties.vocab.tier']);
      expect(facets[0]!.aggregations).toEqual([{ value: 'DATASET', count: 3, description: null }]);
      expect(facets[2]!.displayName).toBe('Retention tier');
    });
  });

  describe('a name that is no property is a 400 naming the closest existing one', () => {
    const closest = /closest existing one is structuredProperties\.vocab/;

    test('REST query', async () => {
      const res = await searchRest(base, 'structuredProperties.vocab_tire:gold');
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/structuredProperties\.vocab_tire/);
      expect(res.body.message).toMatch(/closest existing one is structuredProperties\.vocab_tier/);
    });

    test('GraphQL filter and facet, in the caller spelling', async () => {
      const filtered = await scroll({ types: ['DATASET'], orFilters: [{ and: [{ field: 'structuredProperties.vocab.dayz', values: ['1'] }] }] });
      expect(filtered.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(filtered.errors?.[0]?.message).toMatch(/closest existing one is structuredProperties\.vocab\.days/);
      const faceted = await graphql(base, AGGREGATE, { input: { query: '*', facets: ['structuredProperties.vocab.tiers'] } });
      expect(faceted.errors?.[0]?.message).toMatch(closest);
    });
  });

  test('a soft-deleted test is listed neither by REST nor by GraphQL listTests', async () => {
    const definition = { type: 'JSON', json: JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'urn', operator: 'exists' }] }) };
    for (const id of ['vocab-kept', 'vocab-gone']) await post(`${V3}/entity/test/${enc(`urn:li:test:${id}`)}/testInfo`, { name: id, category: 'c', definition });
    await post(`${V3}/entity/test/${enc('urn:li:test:vocab-gone')}/status`, { removed: true });
    const rest = await http(base, 'GET', `${V3}/entity/test`);
    expect(urns(rest)).toEqual(['urn:li:test:vocab-kept']);
    const listed = await graphql(base, '{ listTests(input: {}) { tests { urn } } }');
    expect(listed.data.listTests.tests.map((t: { urn: string }) => t.urn)).toEqual(['urn:li:test:vocab-kept']);
  });
});
