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

  test('sortInput orders by the last write or the creation time, newest first, and a sorted scroll pages through the same order', async () => {
    const scroll = async (field: string, count: number, scrollId?: string) =>
      graphql(url, SCROLL, { input: { types: ['DATASET'], query: '*', count, ...(scrollId ? { scrollId } : {}), sortInput: { sortCriteria: [{ field, sortOrder: 'DESCENDING' }] } } });
    // Values were set on t0..t3 in that order, after all five were created together: t4 was last written when created.
    const newest = await scroll('lastModifiedTime', 10);
    expect(newest.errors).toBeUndefined();
    expect(newest.data.scrollAcrossEntities.searchResults.map((r: any) => r.entity.urn)).toEqual([datasets[3], datasets[2], datasets[1], datasets[0], datasets[4]]);
    const paged: string[] = [];
    let scrollId: string | undefined;
    do {
      const page = await scroll('lastOperationTime', 2, scrollId);
      expect(page.errors).toBeUndefined();
      expect(page.data.scrollAcrossEntities.total).toBe(5);
      paged.push(...page.data.scrollAcrossEntities.searchResults.map((r: any) => r.entity.urn));
      scrollId = page.data.scrollAcrossEntities.nextScrollId ?? undefined;
    } while (scrollId);
    expect(paged).toEqual([datasets[3], datasets[2], datasets[1], datasets[0], datasets[4]]);
    // A cursor of another order is refused, not silently reinterpreted.
    const first = await scroll('lastModifiedTime', 2);
    const mixed = await graphql(url, SCROLL, { input: { types: ['DATASET'], query: '*', count: 2, scrollId: first.data.scrollAcrossEntities.nextScrollId } });
    expect(mixed.errors?.[0]?.message).toMatch(/scrollId belongs to a scroll in another order/);
    // The definitions: the tier was defined after the retention time.
    const defs = await graphql(url, `query q($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { total searchResults { entity { urn } } } }`, {
      input: { types: ['STRUCTURED_PROPERTY'], query: '*', start: 0, count: 10, sortInput: { sortCriteria: [{ field: 'createdTime', sortOrder: 'DESCENDING' }] } },
    });
    expect(defs.errors).toBeUndefined();
    expect(defs.data.searchAcrossEntities.searchResults.map((r: any) => r.entity.urn)).toEqual([tier, retention]);
  });
});
