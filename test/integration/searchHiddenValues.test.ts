/**
 * Hidden values never reach search (docs/contract.md §5, §6): after a soft delete, a hard delete (and
 * re-creation under the same name) or a breaking version change, no filter and no
 * facet returns the old values, from the moment the change commits, before the cleanup
 * job has rewritten a single document. Filters and facets on a soft-deleted property
 * are refused.
 */
import { ValidationError } from '../../src/domain/errors.js';
import { SYSTEM_CALLER } from '../../src/services/caller.js';
import { findProperty } from '../../src/store/propertyRegistry.js';
import { createDatasets, datasetUrn, defineProperty, hardDelete, propertyUrn, searchRest, setValues, softDeleteProperty, V3 } from '../support/catalog.js';
import { waitForJobs } from '../support/fixtures.js';
import { enc, http, indexCaughtUp } from '../support/http.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';

const D1 = datasetUrn('hidden.one');
const D2 = datasetUrn('hidden.two');
const D3 = datasetUrn('hidden.three');
/** The internal field of the hard-deleted property's first generation. */
let oldAttr: string;

(searchAvailableForTests() ? describe : describe.skip)('hidden values stay out of search', () => {
  let server: TestServer;
  let base: string;
  const search = () => server.services.search;
  const urnsOf = (res: { body: { entities: Array<{ urn: string }> } }) => res.body.entities.map((e) => e.urn).sort();
  const scrollUrns = async (field: string, condition: 'EXISTS' | 'EQUAL' | 'GREATER_THAN', values?: string[]) =>
    (await search().scroll(SYSTEM_CALLER, { types: [], orFilters: [{ and: [{ field, condition, ...(values ? { values } : {}) }] }] })).entities.map((e) => e.urn).sort();
  const facetOf = async (field: string) => (await search().aggregate(SYSTEM_CALLER, { types: [], facets: [field] })).facets[0]!.aggregations;
  /** Raw engine query on an internal field name: proves the stale value is still in the document. */
  const rawHolders = async (attr: string) =>
    (await server.search.engine!.search([{ type: 'dataset', filter: [`${attr} EXISTS`], limit: 100 }]))[0]!.hits.map((h) => h.urn).sort();

  beforeAll(async () => {
    // The job worker stays off until the end: cleanup jobs must not have run when the searches below look.
    server = await startTestServer({ search: true, env: { BACKGROUND_WORKERS: 'false' } });
    server.indexer!.start();
    base = server.url;
    await createDatasets(base, [D1, D2, D3]);
  });

  afterAll(async () => {
    await server?.stop();
  });

  describe('soft delete', () => {
    const S = 'hidden.soft';
    const FIELD = 'structuredProperties.hidden_soft';
    const message = `Cannot filter on deleted Structured Property [${propertyUrn(S)}]`;

    beforeAll(async () => {
      await defineProperty(base, S, { valueType: 'string' });
      await setValues(base, D1, { [S]: ['x'] });
      await setValues(base, D2, { [S]: ['y'] });
      await softDeleteProperty(base, S);
    });

    test('REST filters naming the property are 400 with the property urn', async () => {
      for (const q of [`${FIELD}:x`, `_exists_:${FIELD}`, `NOT ${FIELD}:x`, `origin:PROD OR ${FIELD}:>a`]) {
        const res = await searchRest(base, q);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: 'Validation Error', message });
      }
    });

    test('GraphQL filters and facets on it are refused with the same message', async () => {
      await expect(scrollUrns(`structuredProperties.${S}`, 'EXISTS')).rejects.toThrow(ValidationError);
      await expect(scrollUrns(`structuredProperties.${S}`, 'EXISTS')).rejects.toThrow(message);
      await expect(facetOf(`structuredProperties.${S}`)).rejects.toThrow(message);
    });

    test('its holders are still found by other queries, without its values', async () => {
      const res = await searchRest(base, `name:hidden.one`, { aspects: 'structuredProperties' });
      expect(urnsOf(res)).toEqual([D1]);
      expect(res.body.entities[0].structuredProperties.value.properties).toEqual([]);
    });

    test('a restore makes filters and facets work again, with no reindex', async () => {
      await softDeleteProperty(base, S, false);
      expect(urnsOf(await searchRest(base, `${FIELD}:x`))).toEqual([D1]);
      expect(await facetOf(`structuredProperties.${S}`)).toEqual([{ value: 'x', count: 1 }, { value: 'y', count: 1 }]);
    });
  });

  describe('hard delete, then re-creation under the same name', () => {
    const H = 'hidden.hard';
    const FIELD = 'structuredProperties.hidden_hard';

    beforeAll(async () => {
      await defineProperty(base, H, { valueType: 'number' });
      await setValues(base, D1, { [H]: [5] });
      await setValues(base, D2, { [H]: [7] });
      oldAttr = `sp.g${(await findProperty(server.database.db, propertyUrn(H)))!.generation}`;
      expect(urnsOf(await searchRest(base, `${FIELD}:>1`))).toEqual([D1, D2].sort());
      await hardDelete(base, 'structuredProperty', propertyUrn(H));
    });

    test('right after the delete, before any cleanup: the name is no property any more (400, docs/contract.md §12), so nothing sees the values', async () => {
      expect(await rawHolders(oldAttr)).toEqual([D1, D2].sort());
      for (const q of [`${FIELD}:5`, `_exists_:${FIELD}`, `${FIELD}:[* TO *]`]) {
        const res = await searchRest(base, q);
        expect(res.status).toBe(400);
        expect(res.body.message).toMatch(/Unknown structured property in search field structuredProperties\.hidden_hard/);
      }
      await expect(scrollUrns(`structuredProperties.${H}`, 'EXISTS')).rejects.toThrow(/Unknown structured property/);
      await expect(facetOf(`structuredProperties.${H}`)).rejects.toThrow(/Unknown structured property/);
    });

    test('re-created with another type, the old values stay invisible and new ones show alone', async () => {
      await defineProperty(base, H, { valueType: 'string' });
      expect(await rawHolders(oldAttr)).toEqual([D1, D2].sort());
      expect(await scrollUrns(`structuredProperties.${H}`, 'EXISTS')).toEqual([]);
      expect(urnsOf(await searchRest(base, `${FIELD}:5`))).toEqual([]);
      await setValues(base, D3, { [H]: ['new'] });
      expect(urnsOf(await searchRest(base, `_exists_:${FIELD}`))).toEqual([D3]);
      expect(await facetOf(`structuredProperties.${H}`)).toEqual([{ value: 'new', count: 1 }]);
    });
  });

  describe('breaking change with a new version', () => {
    const V = 'hidden.versioned';
    const V1 = '20240101000000';
    const V2 = '20240614080000';

    beforeAll(async () => {
      await defineProperty(base, V, { valueType: 'number', cardinality: 'MULTIPLE', version: V1 });
      await setValues(base, D1, { [V]: [10, 11] });
      await setValues(base, D2, { [V]: [20] });
      expect(await facetOf(`structuredProperties.${V}`)).toHaveLength(3);
      await defineProperty(base, V, { valueType: 'string', cardinality: 'SINGLE', version: V2 });
    });

    test('old values match neither the plain, the old versioned nor the new versioned field, nor any facet', async () => {
      expect(urnsOf(await searchRest(base, 'structuredProperties.hidden_versioned:10'))).toEqual([]);
      expect(urnsOf(await searchRest(base, `_exists_:structuredProperties._versioned.hidden_versioned.${V1}.number`))).toEqual([]);
      expect(urnsOf(await searchRest(base, `_exists_:structuredProperties._versioned.hidden_versioned.${V2}.string`))).toEqual([]);
      expect(await scrollUrns(`structuredProperties.${V}`, 'GREATER_THAN', ['0'])).toEqual([]);
      expect(await facetOf(`structuredProperties.${V}`)).toEqual([]);
    });

    test('values written under the new version are found by the new versioned field name', async () => {
      // setValues replaces the aspect: keep D3's value of the re-created property.
      await setValues(base, D3, { 'hidden.hard': ['new'], [V]: ['abc'] });
      expect(urnsOf(await searchRest(base, `structuredProperties._versioned.hidden_versioned.${V2}.string:abc`))).toEqual([D3]);
      expect(await facetOf(`structuredProperties.${V}`)).toEqual([{ value: 'abc', count: 1 }]);
    });
  });

  describe('after the cleanup jobs have run', () => {
    test('the stale values are gone from the documents and results are unchanged', async () => {
      server.worker.start();
      const jobs = await waitForJobs(base, 60_000);
      expect(jobs.filter((j) => j.status !== 'done')).toEqual([]);
      // The cleanup's own writes are indexed like any other change.
      await indexCaughtUp(base);
      expect(await rawHolders(oldAttr)).toEqual([]);
      expect(await facetOf('structuredProperties.hidden.hard')).toEqual([{ value: 'new', count: 1 }]);
      expect(await facetOf('structuredProperties.hidden.versioned')).toEqual([{ value: 'abc', count: 1 }]);
      const d1 = await http(base, 'GET', `${V3}/entity/dataset/${enc(D1)}/structuredProperties`);
      const held = d1.body.structuredProperties.value.properties.map((p: { propertyUrn: string }) => p.propertyUrn);
      expect(held).not.toContain(propertyUrn('hidden.hard'));
      expect(held).not.toContain(propertyUrn('hidden.versioned'));
    });
  });

  test('soft-deleted entities (status removed) leave search results', async () => {
    const gone = datasetUrn('hidden.removed');
    await createDatasets(base, [gone]);
    expect(urnsOf(await searchRest(base, 'name:hidden.removed'))).toEqual([gone]);
    await http(base, 'POST', `${V3}/entity/dataset/${enc(gone)}/status`, { query: { createIfNotExists: 'false' }, json: { value: { removed: true } } });
    expect(urnsOf(await searchRest(base, 'name:hidden.removed'))).toEqual([]);
  });
});
