/**
 * Search and aggregation at the service (docs/contract.md §6, §12), on a real PostgreSQL
 * and the shared real Meilisearch (indexes under this runtime's own prefix): the query
 * grammar, orFilters, facets, keywords, paging and count 0, the vocabulary's refusals,
 * and hidden values (soft-deleted, hard-deleted, older-version) never seen, from the
 * moment their change commits: the job worker stays off until the last test, so no
 * cleanup has rewritten a document when the searches look.
 */
import { ValidationError } from '../../src/domain/errors.js';
import { ENTITY } from '../../src/domain/registry/entityTypes.js';
import { keyAspectOf, parseUrn } from '../../src/domain/urn.js';
import type { AggregateInput, AndFilter, ScrollInput } from '../../src/services/searchService.js';
import { entityTypeNamed } from '../../src/services/entityService.js';
import { SEARCH_INDEX_BUILD } from '../../src/services/jobs/kinds.js';
import { searchAvailableForTests } from '../support/server.js';
import { withClient } from '../support/storedValues.js';
import { ADMIN, READER, startTestRuntime, WRITER, type TestRuntime } from '../support/runtime.js';
import { datasetUrn, fieldUrn, indexCaughtUp, jobsSettled, propertiesAspect, propertyUrn, rejection, serviceCatalog, type ServiceCatalog } from '../support/serviceCatalog.js';
import { writesOf } from '../support/writes.js';

const RETENTION = 'io.svc.search.retention';
const RETENTION_FIELD = 'structuredProperties.io_svc_search_retention';
const VERSIONED = 'io.svc.search.versioned';
const VERSION = '20240614080000';
const VERSIONED_FIELD = `structuredProperties._versioned.io_svc_search_versioned.${VERSION}.string`;
const TIER = 'io.svc.search.tier';

const A = datasetUrn('shop.orders');
const B = datasetUrn('shop.customers');
const C = datasetUrn('shop.payments', 'snowflake', 'DEV');

(searchAvailableForTests() ? describe : describe.skip)('search at the service', () => {
  let runtime: TestRuntime;
  let catalog: ServiceCatalog;
  const search = () => runtime.services.search;
  // Every search first waits for the index to hold what was written (read-your-writes on a loaded machine).
  const scroll = async (input: Partial<ScrollInput>) => (await indexCaughtUp(runtime), await search().scroll(READER, { types: [], count: 100, ...input })).entities.map((e) => e.urn);
  const sortedScroll = async (input: Partial<ScrollInput>) => (await scroll(input)).sort();
  const filter = (field: string, condition?: string, values?: string[], negated?: boolean): AndFilter[] => [
    { and: [{ field, ...(condition ? { condition: condition as never } : {}), ...(values ? { values } : {}), ...(negated ? { negated } : {}) }] },
  ];
  const facet = async (input: Partial<AggregateInput>) => (await indexCaughtUp(runtime), await search().aggregate(READER, { types: [], ...input })).facets;
  const query = async (q: string, options: { sort?: string; sortOrder?: string; count?: number; scrollId?: string; type?: string } = {}) => {
    const { type = 'dataset', ...rest } = options;
    await indexCaughtUp(runtime);
    return search().searchEntities(READER, entityTypeNamed(type), { query: q, ...rest });
  };
  const queryUrns = async (q: string, options: Parameters<typeof query>[1] = {}) => (await query(q, options)).entities.map((e) => e.urn);

  beforeAll(async () => {
    runtime = await startTestRuntime({ search: true, env: { BACKGROUND_WORKERS: 'false' } });
    runtime.indexer!.start();
    catalog = serviceCatalog(runtime);
    await catalog.define(RETENTION, { valueType: 'number', cardinality: 'MULTIPLE', allowedValues: [{ value: { double: 30 }, description: 'a month' }, { value: { double: 60 } }, { value: { double: 365 } }] });
    await catalog.define(VERSIONED, { version: VERSION, entityTypes: ['dataset', 'schemaField'] });
    await runtime.services.properties.create(WRITER, {
      id: TIER,
      displayName: 'Retention tier',
      description: 'How long the data is kept',
      valueType: 'urn:li:dataType:svc.string',
      entityTypes: ['urn:li:entityType:svc.dataset'],
      settings: { showInSearchFilters: true },
    });
    await writesOf(runtime.services).batchUpsert(WRITER, ENTITY.dataset, [
      { urn: A, aspects: new Map([['status', { value: { removed: false } }], ['datasetProperties', { value: { name: 'Orders', description: 'Orders placed in the web shop' } }]]) },
      { urn: B, aspects: new Map([['status', { value: { removed: false } }], ['datasetProperties', { value: { description: 'Customers, with the orders they placed' } }]]) },
      { urn: C, aspects: new Map([['status', { value: { removed: false } }], ['datasetProperties', { value: { description: 'Card payments per session' } }]]) },
    ]);
    await catalog.setValues(A, { [RETENTION]: [60], [VERSIONED]: ['foo'], [TIER]: ['gold'] });
    await catalog.setValues(B, { [RETENTION]: [30, 60] });
    await catalog.setValues(C, { [VERSIONED]: ['bar'] });
  });
  afterAll(async () => {
    await runtime?.stop();
  });
  beforeEach(() => indexCaughtUp(runtime));

  describe('the REST query grammar', () => {
    test('a range query returns the holders above the bound in urn order, with the aspects asked for', async () => {
      await indexCaughtUp(runtime);
      const page = await search().searchEntities(READER, ENTITY.dataset, { query: `${RETENTION_FIELD}:>45`, aspects: ['datasetKey', 'structuredProperties'] });
      expect(page.entities.map((e) => e.urn)).toEqual([B, A]);
      expect(page.entities[1]!.aspects.get('datasetKey')!.value).toEqual({ name: 'shop.orders', platform: 'urn:li:dataPlatform:hive', origin: 'PROD' });
      expect(page.scrollId).toBeNull();
    });

    test('_exists_, quoted values and the versioned field name', async () => {
      expect(await queryUrns(`_exists_:${RETENTION_FIELD}`)).toEqual([B, A]);
      expect(await queryUrns(`${VERSIONED_FIELD}:foo`)).toEqual([A]);
      expect(await queryUrns(`${VERSIONED_FIELD}:"bar"`)).toEqual([C]);
    });

    test('AND, OR, NOT, parentheses, [a TO b], * and DESCENDING', async () => {
      expect(await queryUrns(`(${RETENTION_FIELD}:30 OR ${VERSIONED_FIELD}:bar) AND NOT origin:DEV`)).toEqual([B]);
      expect(await queryUrns(`${RETENTION_FIELD}:[31 TO 60]`)).toEqual([B, A]);
      expect(await queryUrns('*')).toEqual([B, A, C]);
      expect(await queryUrns('*', { sortOrder: 'DESCENDING' })).toEqual([C, A, B]);
    });

    test('a malformed query is a ValidationError giving the position', async () => {
      const err = await rejection(query(`${RETENTION_FIELD}:>45 AND (`), ValidationError);
      expect(err.message).toMatch(/position \d+/);
    });

    test('a bare term is a keyword search over names and descriptions, typo tolerant; keywords combine with filters by AND only', async () => {
      expect((await queryUrns('orders')).sort()).toEqual([A, B].sort());
      expect((await queryUrns('ordres')).sort()).toEqual([A, B].sort());
      expect(await queryUrns('session')).toEqual([C]);
      expect(await queryUrns('orders AND platform:hive AND _exists_:structuredProperties.io_svc_search_tier')).toEqual([A]);
      await rejection(query('orders OR platform:hive'), ValidationError);
    });

    test('key fields are forgiving: platform:hive is the platform urn, name matches a word or the whole name', async () => {
      expect(await queryUrns('platform:hive')).toEqual([B, A]);
      expect(await queryUrns('name:shop.orders')).toEqual([A]);
      expect((await queryUrns('name:shop.orders OR origin:DEV')).sort()).toEqual([A, C].sort());
    });

    test('sort orders by the name people read or the last write, in either direction', async () => {
      // The display name before the key's name: "orders" < "shop.customers" < "shop.payments".
      expect(await queryUrns('*', { sort: 'name' })).toEqual([A, B, C]);
      expect(await queryUrns('*', { sort: '_entityName', sortOrder: 'DESCENDING' })).toEqual([C, B, A]);
      // Values were set on A, then B, then C.
      expect(await queryUrns('*', { sort: 'lastModifiedTime', sortOrder: 'DESCENDING' })).toEqual([C, B, A]);
    });

    test("sort on a property's value: numbers by value, several values by the smallest ascending and the largest descending, entities without one last", async () => {
      // A holds 60, B holds 30 and 60, C holds none.
      expect(await queryUrns('*', { sort: `structuredProperties.${RETENTION}` })).toEqual([B, A, C]);
      // Descending, A and B both reach 60: ties go by URN (B's shop.customers first); C still last.
      expect(await queryUrns('*', { sort: RETENTION_FIELD, sortOrder: 'DESCENDING' })).toEqual([B, A, C]);
    });

    test("a sort on a property's value pages by position with its own cursor, on GraphQL's scroll and searchAcrossEntities too", async () => {
      const first = await query('*', { sort: RETENTION_FIELD, count: 2 });
      expect(first.entities.map((e) => e.urn)).toEqual([B, A]);
      const second = await query('*', { sort: RETENTION_FIELD, count: 2, scrollId: first.scrollId! });
      expect(second.entities.map((e) => e.urn)).toEqual([C]);
      await rejection(query('*', { sort: 'name', scrollId: first.scrollId! }), ValidationError);
      const scrolled = await search().scroll(READER, { types: ['dataset'], count: 10, sort: [{ field: `structuredProperties.${TIER}`, sortOrder: 'DESCENDING' }] });
      expect(scrolled.entities[0]!.urn).toBe(A);
      const page = await search().search(READER, { types: ['dataset'], start: 1, count: 1, sort: [{ field: RETENTION_FIELD, sortOrder: 'ASCENDING' }] });
      expect(page.entities.map((e) => e.urn)).toEqual([A]);
    });

    test("a sort on an unknown or deleted property is refused as a filter on it is; a property sort orders the first 1,000 matches", async () => {
      expect((await rejection(search().searchEntities(READER, ENTITY.dataset, { sort: 'structuredProperties.io.svc.search.nothing' }), ValidationError)).message).toMatch(/nothing/);
    });

    test('sort names the URN, a time or the name, and sortOrder only ASCENDING or DESCENDING: else a ValidationError naming the parameter', async () => {
      expect((await rejection(search().searchEntities(READER, ENTITY.dataset, { sort: 'colour' }), ValidationError)).field).toBe('sort');
      expect((await rejection(search().searchEntities(READER, ENTITY.dataset, { sortOrder: 'sideways' }), ValidationError)).field).toBe('sortOrder');
      expect((await rejection(search().searchEntities(READER, ENTITY.dataset, { count: -1 }), ValidationError)).field).toBe('count');
    });

    test('a type search does not cover is listed from the database; a query on it is a ValidationError on query', async () => {
      const platform = 'urn:li:dataPlatform:svcsearch';
      await writesOf(runtime.services).batchUpsert(ADMIN, ENTITY.dataPlatform, [{ urn: platform, aspects: new Map([[ENTITY.dataPlatform.keyAspect, { value: keyAspectOf(parseUrn(platform)) }]]) }]);
      expect((await search().searchEntities(READER, ENTITY.dataPlatform, {})).entities.map((e) => e.urn)).toContain(platform);
      expect((await rejection(search().searchEntities(READER, ENTITY.dataPlatform, { query: 'name:x' }), ValidationError)).field).toBe('query');
    });
  });

  describe('orFilters', () => {
    test('GREATER_THAN with a decimal string; the facet over the same filter agrees with the hits', async () => {
      const orFilters = filter(`structuredProperties.${RETENTION}`, 'GREATER_THAN', ['45.0']);
      const page = await search().scroll(READER, { types: ['DATASET'], query: '*', count: 10, orFilters });
      expect(page.entities.map((e) => e.urn).sort()).toEqual([A, B].sort());
      expect(page).toMatchObject({ count: 2, total: 2, nextScrollId: null });
      expect(page.entities[0]!.entityType).toBe('dataset');
      expect((await facet({ orFilters, facets: [`structuredProperties.${RETENTION}`] }))[0]!.aggregations).toEqual([
        { value: '60.0', count: 2 },
        { value: '30.0', count: 1, description: 'a month' },
      ]);
    });

    test('EXISTS, EQUAL (the default condition) and negated', async () => {
      expect(await sortedScroll({ orFilters: filter(`structuredProperties.${VERSIONED}`, 'EXISTS') })).toEqual([A, C].sort());
      expect(await scroll({ orFilters: filter(`structuredProperties.${RETENTION}`, undefined, ['30.0']) })).toEqual([B]);
      expect(await sortedScroll({ types: ['dataset'], orFilters: filter(`structuredProperties.${RETENTION}`, 'EQUAL', ['30.0'], true) })).toEqual([A, C].sort());
    });

    test('CONTAIN, START_WITH and END_WITH on text; an OR of ANDs', async () => {
      const field = `structuredProperties.${VERSIONED}`;
      expect(await scroll({ orFilters: filter(field, 'CONTAIN', ['o']) })).toEqual([A]);
      expect(await scroll({ orFilters: filter(field, 'START_WITH', ['ba']) })).toEqual([C]);
      expect(await scroll({ orFilters: filter(field, 'END_WITH', ['oo']) })).toEqual([A]);
      expect(await sortedScroll({ orFilters: [...filter(field, 'EQUAL', ['foo']), ...filter('origin', 'EQUAL', ['DEV'])] })).toEqual([A, C].sort());
    });

    test('the key fields urn, platform, origin and name filter too', async () => {
      expect(await scroll({ orFilters: filter('urn', 'EQUAL', [C]) })).toEqual([C]);
      expect(await sortedScroll({ orFilters: filter('urn', 'EQUAL', [A, C]) })).toEqual([A, C].sort());
      // Exact: a URN differing in case is another URN.
      expect(await scroll({ orFilters: filter('urn', 'EQUAL', [C.replace('DEV', 'dev')]) })).toEqual([]);
      expect(await scroll({ orFilters: filter('platform', 'EQUAL', ['snowflake']) })).toEqual([C]);
      expect(await sortedScroll({ orFilters: filter('origin', 'EQUAL', ['PROD']) })).toEqual([A, B].sort());
      expect(await scroll({ orFilters: filter('name', 'EQUAL', ['shop.customers']) })).toEqual([B]);
    });

    test('an unknown or unsearchable type is a ValidationError on types', async () => {
      expect((await rejection(search().scroll(READER, { types: ['SPACESHIP'] }), ValidationError)).field).toBe('types');
      expect((await rejection(search().scroll(READER, { types: ['DATA_TYPE'] }), ValidationError)).field).toBe('types');
    });
  });

  describe('paging', () => {
    test('count 0 answers the total alone', async () => {
      expect(await search().scroll(READER, { types: ['DATASET'], count: 0 })).toMatchObject({ count: 0, total: 3, entities: [] });
      expect((await query('*', { count: 0 })).entities).toEqual([]);
    });

    test('the scroll cursor reaches every hit once, with the exact total on each page', async () => {
      const seen: string[] = [];
      let scrollId: string | null = null;
      do {
        const page: Awaited<ReturnType<ReturnType<typeof search>['scroll']>> = await search().scroll(READER, { types: ['DATASET'], count: 2, ...(scrollId ? { scrollId } : {}) });
        expect(page.total).toBe(3);
        seen.push(...page.entities.map((e) => e.urn));
        scrollId = page.nextScrollId;
      } while (scrollId);
      expect(seen.sort()).toEqual([A, B, C].sort());
    });

    test('a REST cursor continues in urn order', async () => {
      const first = await query('*', { count: 2 });
      expect(first.entities.map((e) => e.urn)).toEqual([B, A]);
      const second = await query('*', { count: 2, scrollId: first.scrollId! });
      expect(second.entities.map((e) => e.urn)).toEqual([C]);
      expect(second.scrollId).toBeNull();
    });

    test('keyword hits rank a name match above a description match, and pages continue where the last ended', async () => {
      const first = await search().scroll(READER, { types: ['DATASET'], query: 'orders', count: 1 });
      expect(first.total).toBe(2);
      expect(first.entities.map((e) => e.urn)).toEqual([A]);
      const second = await search().scroll(READER, { types: ['DATASET'], query: 'orders', count: 1, scrollId: first.nextScrollId });
      expect(second.entities.map((e) => e.urn)).toEqual([B]);
    });
  });

  test('a rebuild of the indexes is one job at a time: asked again while it waits, the same job answers', async () => {
    const first = await search().requestRebuild(ADMIN, 'test');
    const again = await search().requestRebuild(ADMIN, 'test again');
    // `first` may itself answer with a build the indexer queued (a CI run saw created:
    // false once, on a loaded machine); what matters is that asking again adds none.
    expect(again).toEqual({ jobId: first.jobId, created: false });
    expect(await runtime.services.jobs.get(ADMIN, first.jobId)).toMatchObject({ kind: SEARCH_INDEX_BUILD, status: expect.stringMatching(/^(pending|running)$/) });
  });

  describe('facets', () => {
    test('count every value, numbers as decimal strings and strings as they are, sorted by count then value; maxAggValues caps', async () => {
      const facets = await facet({ facets: [`structuredProperties.${RETENTION}`, `structuredProperties.${VERSIONED}`, 'platform'] });
      expect(facets.map(({ field, aggregations }) => ({ field, aggregations: aggregations.map(({ value, count }) => ({ value, count })) }))).toEqual([
        { field: `structuredProperties.${RETENTION}`, aggregations: [{ value: '60.0', count: 2 }, { value: '30.0', count: 1 }] },
        { field: `structuredProperties.${VERSIONED}`, aggregations: [{ value: 'bar', count: 1 }, { value: 'foo', count: 1 }] },
        { field: 'platform', aggregations: [{ value: 'urn:li:dataPlatform:hive', count: 2 }, { value: 'urn:li:dataPlatform:snowflake', count: 1 }] },
      ]);
      expect((await facet({ facets: [`structuredProperties.${RETENTION}`], maxAggValues: 1 }))[0]!.aggregations).toEqual([{ value: '60.0', count: 2 }]);
    });

    test('a property facet carries the display name and the property; maxAggValues must be a whole number >= 0', async () => {
      const [tier] = await facet({ facets: [`structuredProperties.${TIER}`] });
      expect(tier).toEqual({ field: `structuredProperties.${TIER}`, displayName: 'Retention tier', propertyUrn: propertyUrn(TIER), aggregations: [{ value: 'gold', count: 1 }] });
      expect((await rejection(search().aggregate(READER, { types: [], maxAggValues: -1 }), ValidationError)).field).toBe('maxAggValues');
    });

    test('without facets: entity type, platform and every property shown in search filters', async () => {
      const facets = await facet({});
      expect(facets.map((f) => f.field)).toEqual(['_entityType', 'platform', `structuredProperties.${TIER}`]);
      expect(facets[0]!.aggregations).toEqual([{ value: 'DATASET', count: 3 }]);
    });
  });

  describe('what was sent to the engine travels with the answer', () => {
    test('a scroll answers with its one multi-search request, which names each index searched', async () => {
      await indexCaughtUp(runtime);
      const page = await search().scroll(READER, { types: ['DATASET'], count: 10, orFilters: filter(`structuredProperties.${RETENTION}`, 'GREATER_THAN', ['45.0']) });
      expect(page.entities.map((e) => e.urn).sort()).toEqual([A, B].sort());
      expect(page.engineRequests).toHaveLength(1);
      const [sent] = page.engineRequests as Array<{ path: string; body: { queries: Array<{ indexUid: string; filter: string[] }> } }>;
      expect(sent!.path).toBe('/multi-search');
      expect(sent!.body.queries).toHaveLength(1);
      expect(sent!.body.queries[0]!.indexUid).toMatch(/dataset/);
      // The property's values are held under its generation: the filter compares them with the bound asked.
      expect(sent!.body.queries[0]!.filter.join(' ')).toMatch(/^_removed = false sp\.g\d+ > "45"$/);
    });

    test('an aggregate over the default facets answers with the search for the properties shown and the facet search', async () => {
      await indexCaughtUp(runtime);
      const { engineRequests } = await search().aggregate(READER, { types: ['DATASET'] });
      expect(engineRequests).toHaveLength(2);
      const [shown, counted] = engineRequests as Array<{ path: string; body: { queries: Array<{ limit: number; facets?: string[] }> } }>;
      expect(shown!.body.queries[0]!.limit).toBeGreaterThan(0);
      expect(counted!.body.queries.map((q) => q.limit)).toEqual([0]);
      expect(counted!.body.queries[0]!.facets?.length).toBeGreaterThan(0);
    });

    test('a listing from the database sends nothing to the engine', async () => {
      const listed = await search().searchEntities(READER, entityTypeNamed('dataPlatform'), {});
      expect(listed.engineRequests).toEqual([]);
    });
  });

  describe('names that are no property', () => {
    test('a filter, a query or a facet naming one is a ValidationError naming the closest existing property', async () => {
      expect((await rejection(query(`${RETENTION_FIELD.slice(0, -2)}:1`), ValidationError)).message).toContain(`closest existing one is ${RETENTION_FIELD}`);
      expect((await rejection(search().scroll(READER, { types: [], orFilters: filter(`structuredProperties.${RETENTION}x`, 'EXISTS') }), ValidationError)).message).toMatch(/closest existing one is structuredProperties\.io\.svc\.search\.retention/);
      expect((await rejection(facet({ facets: ['structuredProperties.io.svc.search.tiers'] }), ValidationError)).field).toBe('field');
      await rejection(query('colour:red'), ValidationError);
    });
  });

  describe('definitions and schema fields are searchable when named', () => {
    test('STRUCTURED_PROPERTY by keyword and by value type; SCHEMA_FIELD by its field path', async () => {
      expect(await scroll({ types: ['STRUCTURED_PROPERTY'], query: 'kept' })).toEqual([propertyUrn(TIER)]);
      expect(await scroll({ types: ['STRUCTURED_PROPERTY'], query: 'valueType:number' })).toEqual([propertyUrn(RETENTION)]);
      const field = fieldUrn(A, 'customer_id');
      await catalog.setValues(field, { [VERSIONED]: ['col'] });
      expect(await scroll({ types: ['SCHEMA_FIELD'], query: 'customer' })).toEqual([field]);
      expect(await scroll({ types: [], orFilters: filter(`structuredProperties.${VERSIONED}`, 'EQUAL', ['col']) })).toEqual([]);
    });
  });

  describe('hidden values are never seen', () => {
    /** The internal field of the hard-deleted property's first generation. */
    let hardDeletedField = '';
    test('a filter or facet on a soft-deleted property is a ValidationError naming it; its holders are still found without its values; a restore makes it work again', async () => {
      const S = 'io.svc.search.soft';
      await catalog.define(S);
      await catalog.setValues(B, { [RETENTION]: [30, 60], [S]: ['x'] });
      await catalog.softDelete(S);
      const message = `Cannot filter on deleted Structured Property [${propertyUrn(S)}]`;
      for (const q of ['structuredProperties.io_svc_search_soft:x', '_exists_:structuredProperties.io_svc_search_soft', 'NOT structuredProperties.io_svc_search_soft:x']) {
        expect((await rejection(query(q), ValidationError)).message).toBe(message);
      }
      expect((await rejection(search().scroll(READER, { types: [], orFilters: filter(`structuredProperties.${S}`, 'EXISTS') }), ValidationError)).message).toBe(message);
      expect((await rejection(facet({ facets: [`structuredProperties.${S}`] }), ValidationError)).message).toBe(message);
      await indexCaughtUp(runtime);
      const holder = await search().searchEntities(READER, ENTITY.dataset, { query: 'name:shop.customers', aspects: ['structuredProperties'] });
      expect(holder.entities[0]!.aspects.get('structuredProperties')!.value).toEqual({ properties: [{ propertyUrn: propertyUrn(RETENTION), values: [{ double: 30 }, { double: 60 }] }] });
      await catalog.softDelete(S, false);
      expect(await queryUrns('structuredProperties.io_svc_search_soft:x')).toEqual([B]);
    });

    test('after a hard delete the name is no property, and re-created with another type the old values stay out while new ones show', async () => {
      const H = 'io.svc.search.hard';
      await catalog.define(H, { valueType: 'number' });
      await catalog.setValues(C, { [VERSIONED]: ['bar'], [H]: [5] });
      expect(await queryUrns('structuredProperties.io_svc_search_hard:5')).toEqual([C]);
      const generation = await withClient(runtime.databaseUrl, async (c) => (await c.query('SELECT generation::text AS g FROM structured_property WHERE urn = $1', [propertyUrn(H)])).rows[0].g as string);
      /** The engine asked directly, by the property's internal field: the stale value is still in the document. */
      const staleHolders = async () => (await runtime.search.engine!.search([{ type: 'dataset', filter: [`sp.g${generation} EXISTS`], limit: 100 }])).results[0]!.hits.map((h) => h.urn);
      await runtime.services.properties.delete(ADMIN, propertyUrn(H));
      await indexCaughtUp(runtime);
      expect(await staleHolders()).toEqual([C]);
      expect((await rejection(query('structuredProperties.io_svc_search_hard:5'), ValidationError)).message).toMatch(/Unknown structured property in search field structuredProperties\.io_svc_search_hard/);
      await rejection(facet({ facets: [`structuredProperties.${H}`] }), ValidationError);
      await catalog.define(H);
      expect(await queryUrns('_exists_:structuredProperties.io_svc_search_hard')).toEqual([]);
      expect(await facet({ facets: [`structuredProperties.${H}`] })).toEqual([expect.objectContaining({ aggregations: [] })]);
      await catalog.setValues(A, { [RETENTION]: [60], [VERSIONED]: ['foo'], [TIER]: ['gold'], [H]: ['new'] });
      expect(await queryUrns('_exists_:structuredProperties.io_svc_search_hard')).toEqual([A]);
      expect(await staleHolders()).toEqual([C]);
      hardDeletedField = `sp.g${generation}`;
    });

    test('after a breaking change with a new version, old values match no field and no facet; new ones match the new versioned name', async () => {
      const V = 'io.svc.search.versions';
      const [V1, V2] = ['20240101000000', '20250101000000'];
      await catalog.define(V, { valueType: 'number', cardinality: 'MULTIPLE', version: V1 });
      await catalog.setValues(B, { [RETENTION]: [30, 60], [V]: [10, 11] });
      expect((await facet({ facets: [`structuredProperties.${V}`] }))[0]!.aggregations).toHaveLength(2);
      await catalog.define(V, { valueType: 'string', version: V2 });
      expect(await queryUrns('structuredProperties.io_svc_search_versions:10')).toEqual([]);
      expect(await queryUrns(`_exists_:structuredProperties._versioned.io_svc_search_versions.${V1}.number`)).toEqual([]);
      expect(await scroll({ orFilters: filter(`structuredProperties.${V}`, 'EXISTS') })).toEqual([]);
      expect((await facet({ facets: [`structuredProperties.${V}`] }))[0]!.aggregations).toEqual([]);
      await catalog.setValues(B, { [RETENTION]: [30, 60], [V]: ['abc'] });
      expect(await queryUrns(`structuredProperties._versioned.io_svc_search_versions.${V2}.string:abc`)).toEqual([B]);
    });

    test('a soft-deleted entity leaves the results unless the filter names removed or includeSoftDeleted asks', async () => {
      const gone = datasetUrn('shop.removed');
      await catalog.createDatasets([gone]);
      expect(await queryUrns('name:shop.removed')).toEqual([gone]);
      await writesOf(runtime.services).setAspect(WRITER, gone, 'status', { value: { removed: true } });
      expect(await queryUrns('name:shop.removed')).toEqual([]);
      expect(await scroll({ types: ['DATASET'], query: 'removed:true' })).toEqual([gone]);
      expect(await scroll({ types: ['DATASET'], query: 'name:shop.removed', includeSoftDeleted: true })).toEqual([gone]);
    });

    test('once the cleanup jobs ran, results are unchanged', async () => {
      runtime.worker.start();
      expect((await jobsSettled(runtime, 150_000)).filter((j) => j.status !== 'done')).toEqual([]);
      await indexCaughtUp(runtime);
      const stale = await runtime.search.engine!.search([{ type: 'dataset', filter: [`${hardDeletedField} EXISTS`], limit: 100 }]);
      expect(stale.results[0]!.hits).toEqual([]);
      expect(await queryUrns('_exists_:structuredProperties.io_svc_search_hard')).toEqual([A]);
      expect(await queryUrns('structuredProperties.io_svc_search_versions:10')).toEqual([]);
    }, 180_000);
  });

  test('a write is seen by the next search (read-your-writes), and a delete likewise; their receipts say so', async () => {
    const fresh = datasetUrn('shop.fresh');
    await catalog.createDatasets([fresh]);
    const { receipt: written } = await writesOf(runtime.services).setAspect(WRITER, fresh, 'structuredProperties', { value: propertiesAspect({ [RETENTION]: [365] }) });
    expect(written).toEqual({ indexStatus: 'indexed', lastChange: expect.any(BigInt) });
    expect(await queryUrns(`${RETENTION_FIELD}:365`)).toEqual([fresh]);
    const deleted = await writesOf(runtime.services).deleteEntity(ADMIN, fresh);
    expect(deleted.indexStatus).toBe('indexed');
    expect(deleted.lastChange).toBeGreaterThan(written.lastChange);
    expect(await queryUrns(`${RETENTION_FIELD}:365`)).toEqual([]);
  });

});
