/**
 * Search over GraphQL (docs/contract.md §6): scrollAcrossEntities and
 * aggregateAcrossEntities as DataHub clients send them, against a real Meilisearch:
 * the inputs (orFilters, searchFlags, cursors), the answers' shapes, the response's
 * extensions, and a refusal as BAD_USER_INPUT. Which hits and facet values a filter
 * gives is the search service's rule, tested in test/services/search.test.ts.
 */
import { graphql } from '../support/graphql.js';
import { createDatasets, datasetUrnOf, defineProperty, setProperties, softDelete } from '../support/fixtures.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';

const available = searchAvailableForTests();
if (!available) console.log('GraphQL search suite skipped: no Meilisearch binary for this platform');

const SCROLL = `query s($input: ScrollAcrossEntitiesInput!) {
  scrollAcrossEntities(input: $input) { nextScrollId count total searchResults { entity { urn type } } }
}`;
const AGGREGATE = `query a($input: AggregateAcrossEntitiesInput!) {
  aggregateAcrossEntities(input: $input) { facets { field aggregations { value count } } }
}`;

(available ? describe : describe.skip)('GraphQL search', () => {
  let server: TestServer;
  let url: string;
  const retention = 'urn:li:structuredProperty:io.gqlsearch.retentionTime';
  const tier = 'urn:li:structuredProperty:io.gqlsearch.tier';
  const datasets = [30, 60, 60, 365, 90].map((_, i) => datasetUrnOf(`gqlsearch.t${i}`));

  beforeAll(async () => {
    server = await startTestServer({ search: true });
    url = server.url;
    await defineProperty(url, 'io.gqlsearch.retentionTime', { valueType: 'urn:li:dataType:svc.number', cardinality: 'MULTIPLE' });
    await defineProperty(url, 'io.gqlsearch.tier', { valueType: 'urn:li:dataType:svc.string' });
    await createDatasets(url, datasets);
    const values = [30, 60, 60, 365];
    for (const [i, v] of values.entries()) {
      await setProperties(url, datasets[i]!, [
        { propertyUrn: retention, values: [{ double: v }] },
        { propertyUrn: tier, values: [{ string: v >= 60 ? 'gold' : 'silver' }] },
      ]);
    }
    // Each write may wait for a loaded machine's index (X-Index-Status: pending, then /health): bounded, not timed.
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
  });

  const filter = (field: string, condition: string, values?: string[], negated?: boolean) => [{ and: [{ field, condition, ...(values ? { values } : {}), ...(negated ? { negated } : {}) }] }];

  test('GREATER_THAN with a decimal string returns the datasets above it; facets over the same filter agree', async () => {
    const orFilters = filter('structuredProperties.io.gqlsearch.retentionTime', 'GREATER_THAN', ['45.0']);
    const hits = await graphql(url, SCROLL, { input: { types: ['DATASET'], count: 10, query: '*', orFilters } });
    expect(hits.errors).toBeUndefined();
    expect(hits.data.scrollAcrossEntities.total).toBe(3);
    expect(hits.data.scrollAcrossEntities.searchResults.map((r: any) => r.entity.urn).sort()).toEqual([datasets[1], datasets[2], datasets[3]].sort());
    expect(hits.data.scrollAcrossEntities.searchResults[0].entity.type).toBe('DATASET');
    const facets = await graphql(url, AGGREGATE, { input: { types: [], query: '*', orFilters, facets: ['structuredProperties.io.gqlsearch.retentionTime'], searchFlags: { maxAggValues: 100 } } });
    expect(facets.errors).toBeUndefined();
    expect(facets.data.aggregateAcrossEntities.facets).toEqual([
      { field: 'structuredProperties.io.gqlsearch.retentionTime', aggregations: [{ value: '60.0', count: 2 }, { value: '365.0', count: 1 }] },
    ]);
  });

  test('facets on several fields come back as requested, numbers as decimal strings, strings as they are', async () => {
    const res = await graphql(url, AGGREGATE, {
      input: { types: ['DATASET'], query: '*', facets: ['structuredProperties.io.gqlsearch.tier', 'structuredProperties.io.gqlsearch.retentionTime'], searchFlags: { maxAggValues: 2 } },
    });
    expect(res.data.aggregateAcrossEntities.facets).toEqual([
      { field: 'structuredProperties.io.gqlsearch.tier', aggregations: [{ value: 'gold', count: 3 }, { value: 'silver', count: 1 }] },
      { field: 'structuredProperties.io.gqlsearch.retentionTime', aggregations: [{ value: '60.0', count: 2 }, { value: '30.0', count: 1 }] },
    ]);
  });

  test('the scroll cursor pages through every hit with the exact total on each page', async () => {
    const seen: string[] = [];
    let scrollId: string | null = null;
    do {
      const page: any = await graphql(url, SCROLL, { input: { types: ['DATASET'], query: '*', count: 2, ...(scrollId ? { scrollId } : {}) } });
      expect(page.data.scrollAcrossEntities.total).toBe(5);
      seen.push(...page.data.scrollAcrossEntities.searchResults.map((r: any) => r.entity.urn));
      scrollId = page.data.scrollAcrossEntities.nextScrollId;
    } while (scrollId);
    expect(seen.sort()).toEqual([...datasets].sort());
  });

  test('search responses carry extensions beside data', async () => {
    const res = await graphql(url, AGGREGATE, { input: { types: [], query: '*', facets: ['structuredProperties.io.gqlsearch.tier'] } });
    expect(res.response.body.extensions.search).toEqual([{ operation: 'aggregateAcrossEntities', entityTypes: 'all searchable', tookMs: expect.any(Number) }]);
  });

  test('a filter or facet on a soft-deleted property is BAD_USER_INPUT naming it', async () => {
    const retired = await defineProperty(url, 'io.gqlsearch.retired', { valueType: 'urn:li:dataType:svc.string' });
    await softDelete(url, retired);
    const res = await graphql(url, SCROLL, { input: { types: ['DATASET'], query: '*', orFilters: filter('structuredProperties.io.gqlsearch.retired', 'EXISTS') } });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toBe(`Cannot filter on deleted Structured Property [${retired}]`);
    const facet = await graphql(url, AGGREGATE, { input: { types: [], query: '*', facets: ['structuredProperties.io.gqlsearch.retired'] } });
    expect(facet.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});
