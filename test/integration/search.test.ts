/**
 * Search and aggregation against a real Meilisearch (docs/contract.md §6): the
 * contract's examples over REST and through the search service the GraphQL resolvers
 * call, with hits and facets checked together.
 */
import { SYSTEM_CALLER } from '../../src/services/caller.js';
import type { AggregateResult } from '../../src/services/searchService.js';
import { createDatasets, datasetUrn, defineProperty, searchRest, setValues, V3 } from '../support/catalog.js';
import { enc, http } from '../support/http.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';

const RETENTION = 'io.acryl.privacy.retentionTime';
const RETENTION_FIELD = 'structuredProperties.io_acryl_privacy_retentionTime';
const VERSIONED = 'io.acryl.privacy.retentionTime02';
const VERSION = '20240614080000';
const VERSIONED_FIELD = `structuredProperties._versioned.io_acryl_privacy_retentionTime02.${VERSION}.string`;

const A = datasetUrn('db.orders');
const B = datasetUrn('db.customers');
const C = datasetUrn('db.payments', 'snowflake', 'DEV');

function facet(result: AggregateResult, field: string) {
  return result.facets.find((f) => f.field === field)?.aggregations;
}

(searchAvailableForTests() ? describe : describe.skip)('search and aggregation (docs/contract.md §6)', () => {
  let server: TestServer;
  let base: string;
  const search = () => server.services.search;

  beforeAll(async () => {
    server = await startTestServer({ search: true });
    base = server.url;
    await defineProperty(base, RETENTION, { valueType: 'number', allowedValues: [{ value: { double: 30 } }, { value: { double: 60 } }, { value: { double: 365 } }] });
    await defineProperty(base, VERSIONED, { valueType: 'string', version: VERSION, cardinality: 'SINGLE' });
    await createDatasets(base, [A, B, C]);
    await setValues(base, A, { [RETENTION]: [60], [VERSIONED]: ['foo'] });
    await setValues(base, B, { [RETENTION]: [30, 60] });
    await setValues(base, C, { [VERSIONED]: ['bar'] });
  });

  afterAll(async () => {
    await server?.stop();
  });

  test('REST range query structuredProperties.<name>:>45 returns the datasets with a value above 45, with the requested aspects', async () => {
    const res = await searchRest(base, `${RETENTION_FIELD}:>45`, { aspects: ['datasetKey', 'structuredProperties'], count: '10', sort: 'urn', sortOrder: 'ASCENDING' });
    expect(res.status).toBe(200);
    expect(res.body.entities.map((e: { urn: string }) => e.urn)).toEqual([B, A]);
    const a = res.body.entities.find((e: { urn: string }) => e.urn === A);
    expect(a.datasetKey).toEqual({ value: { name: 'db.orders', platform: 'urn:li:dataPlatform:hive', origin: 'PROD' } });
    expect(res.text).toContain('{"double":60.0}');
    expect(res.body.scrollId).toBeUndefined();
  });

  test('REST _exists_ matches exactly the datasets holding the property', async () => {
    const res = await searchRest(base, `_exists_:${RETENTION_FIELD}`);
    expect(res.status).toBe(200);
    expect(res.body.entities.map((e: { urn: string }) => e.urn).sort()).toEqual([A, B].sort());
  });

  test('REST equality on the versioned field name matches the value written under that version', async () => {
    const res = await searchRest(base, `${VERSIONED_FIELD}:foo`);
    expect(res.status).toBe(200);
    expect(res.body.entities.map((e: { urn: string }) => e.urn)).toEqual([A]);
    const quoted = await searchRest(base, `${VERSIONED_FIELD}:"bar"`);
    expect(quoted.body.entities.map((e: { urn: string }) => e.urn)).toEqual([C]);
  });

  test('REST boolean queries combine clauses with AND, OR, NOT and parentheses', async () => {
    const res = await searchRest(base, `(${RETENTION_FIELD}:30 OR ${VERSIONED_FIELD}:bar) AND NOT origin:DEV`);
    expect(res.body.entities.map((e: { urn: string }) => e.urn)).toEqual([B]);
    const range = await searchRest(base, `${RETENTION_FIELD}:[31 TO 60]`);
    expect(range.body.entities.map((e: { urn: string }) => e.urn).sort()).toEqual([A, B].sort());
    const all = await searchRest(base, '*');
    expect(all.body.entities).toHaveLength(3);
  });

  test('REST sortOrder DESCENDING returns urns in reverse order', async () => {
    const res = await searchRest(base, '*', { sort: 'urn', sortOrder: 'DESCENDING' });
    expect(res.body.entities.map((e: { urn: string }) => e.urn)).toEqual([C, A, B].sort().reverse());
  });

  test('a malformed REST query is 400 with the position of the error', async () => {
    const res = await searchRest(base, `${RETENTION_FIELD}:>45 AND (`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Validation Error', message: expect.stringMatching(/position \d+/) });
  });

  test('GraphQL GREATER_THAN with a decimal string filters numbers; hits and facets agree', async () => {
    const orFilters = [{ and: [{ field: `structuredProperties.${RETENTION}`, condition: 'GREATER_THAN' as const, values: ['45.0'] }] }];
    const scroll = await search().scroll(SYSTEM_CALLER, { types: ['DATASET'], query: '*', count: 10, orFilters });
    expect(scroll.entities.map((e) => e.urn).sort()).toEqual([A, B].sort());
    expect(scroll).toMatchObject({ count: 2, total: 2, nextScrollId: null });
    expect(scroll.entities[0]!.entityType).toBe('dataset');
    const agg = await search().aggregate(SYSTEM_CALLER, { types: [], query: '*', orFilters, facets: [`structuredProperties.${RETENTION}`], maxAggValues: 100 });
    expect(facet(agg, `structuredProperties.${RETENTION}`)).toEqual([
      { value: '60.0', count: 2 },
      { value: '30.0', count: 1 },
    ]);
  });

  test('GraphQL EXISTS and EQUAL (and negated) select the holders', async () => {
    const exists = await search().scroll(SYSTEM_CALLER, { types: [], orFilters: [{ and: [{ field: `structuredProperties.${VERSIONED}`, condition: 'EXISTS' }] }] });
    expect(exists.entities.map((e) => e.urn).sort()).toEqual([A, C].sort());
    const equal = await search().scroll(SYSTEM_CALLER, { types: ['dataset'], orFilters: [{ and: [{ field: `structuredProperties.${RETENTION}`, values: ['30.0'] }] }] });
    expect(equal.entities.map((e) => e.urn)).toEqual([B]);
    const negated = await search().scroll(SYSTEM_CALLER, {
      types: ['dataset'],
      orFilters: [{ and: [{ field: `structuredProperties.${RETENTION}`, condition: 'EQUAL', values: ['30.0'], negated: true }] }],
    });
    expect(negated.entities.map((e) => e.urn).sort()).toEqual([A, C].sort());
  });

  test('aggregations count every value, numbers as decimal strings and strings as they are, sorted by count then value', async () => {
    const agg = await search().aggregate(SYSTEM_CALLER, {
      types: [],
      facets: [`structuredProperties.${RETENTION}`, `structuredProperties.${VERSIONED}`, 'platform'],
    });
    expect(agg.facets.map(({ field, aggregations }) => ({ field, aggregations }))).toEqual([
      { field: `structuredProperties.${RETENTION}`, aggregations: [{ value: '60.0', count: 2 }, { value: '30.0', count: 1 }] },
      { field: `structuredProperties.${VERSIONED}`, aggregations: [{ value: 'bar', count: 1 }, { value: 'foo', count: 1 }] },
      { field: 'platform', aggregations: [{ value: 'urn:li:dataPlatform:hive', count: 2 }, { value: 'urn:li:dataPlatform:snowflake', count: 1 }] },
    ]);
    const capped = await search().aggregate(SYSTEM_CALLER, { types: [], facets: [`structuredProperties.${RETENTION}`], maxAggValues: 1 });
    expect(facet(capped, `structuredProperties.${RETENTION}`)).toEqual([{ value: '60.0', count: 2 }]);
  });

  test('text conditions: CONTAIN, START_WITH and END_WITH', async () => {
    const run = async (condition: 'CONTAIN' | 'START_WITH' | 'END_WITH', value: string) =>
      (await search().scroll(SYSTEM_CALLER, { types: [], orFilters: [{ and: [{ field: `structuredProperties.${VERSIONED}`, condition, values: [value] }] }] })).entities.map((e) => e.urn);
    expect(await run('CONTAIN', 'o')).toEqual([A]);
    expect(await run('START_WITH', 'ba')).toEqual([C]);
    expect(await run('END_WITH', 'ar')).toEqual([C]);
    expect(await run('END_WITH', 'oo')).toEqual([A]);
  });

  test('key fields urn, platform, origin and name filter too', async () => {
    const byUrn = await search().scroll(SYSTEM_CALLER, { types: [], orFilters: [{ and: [{ field: 'urn', values: [C] }] }] });
    expect(byUrn.entities.map((e) => e.urn)).toEqual([C]);
    const byName = await searchRest(base, 'name:db.orders OR origin:DEV');
    expect(byName.body.entities.map((e: { urn: string }) => e.urn).sort()).toEqual([A, C].sort());
  });

  test('a filter on a property that does not exist is 400 naming the closest existing one (docs/contract.md §12); an unknown field is 400', async () => {
    for (const q of [`${RETENTION_FIELD.slice(0, -2)}:1`, `NOT ${RETENTION_FIELD.slice(0, -2)}:1`]) {
      const res = await searchRest(base, q);
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(`closest existing one is ${RETENTION_FIELD}`);
    }
    const bad = await searchRest(base, 'colour:red');
    expect(bad.status).toBe(400);
  });

  test('a write is visible to the next search (read-your-writes)', async () => {
    const d = datasetUrn('db.fresh');
    await createDatasets(base, [d]);
    await setValues(base, d, { [RETENTION]: [365] });
    const res = await searchRest(base, `${RETENTION_FIELD}:365`);
    expect(res.body.entities.map((e: { urn: string }) => e.urn)).toEqual([d]);
    await http(base, 'DELETE', `${V3}/entity/dataset/${enc(d)}`);
    const after = await searchRest(base, `${RETENTION_FIELD}:365`);
    expect(after.body.entities).toEqual([]);
  });
});
