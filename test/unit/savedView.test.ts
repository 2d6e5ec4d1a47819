/**
 * Saved views' rules (src/domain/savedView.ts): what a view may hold, the aspect DataHub's
 * clients read, and how a view scopes a search.
 */
import { ValidationError } from '../../src/domain/errors.js';
import { newView, parseDefinition, scopeByView, updatedView, viewInfoOf, viewOf, type SavedView } from '../../src/domain/savedView.js';

const TIER = 'structuredProperties.io.acryl.tier';
const definition = { entityTypes: ['DATASET'], filter: { operator: 'AND', filters: [{ field: TIER, values: ['gold'], condition: 'EQUAL' }] } };
const view = (over: Partial<SavedView> = {}): SavedView => ({ ...newView('urn:li:dataHubView:v1', 'PERSONAL', { name: 'Gold', definition }, 'urn:li:corpuser:ann', 1000), ...over });

function refusal(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('a view', () => {
  test('needs a name, naming the field', () => {
    expect(refusal(() => newView('urn:li:dataHubView:v', 'PERSONAL', { name: ' ', definition }, 'urn:li:corpuser:ann', 1)).field).toBe('name');
  });

  test('names entity types the registry has, naming the one it does not', () => {
    const err = refusal(() => parseDefinition({ entityTypes: ['DATASET', 'DATASETS'], filter: { operator: 'AND', filters: [] } }, 'definition'));
    expect(err.field).toBe('definition.entityTypes[1]');
    expect(err.message).toMatch(/"DATASETS" is not an entity type/);
  });

  test('holds filters the search grammar takes: an unknown condition is refused with the filter named', () => {
    const err = refusal(() => parseDefinition({ entityTypes: [], filter: { operator: 'AND', filters: [{ field: TIER, values: ['x'], condition: 'ANCESTORS_INCL' }] } }, 'definition'));
    expect(err.field).toBe('definition.filter.filters[0]');
    expect(err.message).toMatch(/ANCESTORS_INCL is not one of/);
  });

  test('an update changes what it names and stamps the change', () => {
    const changed = updatedView(view(), { name: 'Gold tier' }, 'urn:li:corpuser:ann', 2000);
    expect(changed).toMatchObject({ name: 'Gold tier', definition: view().definition, created: { time: 1000 }, lastModified: { time: 2000 } });
  });

  test("is stored as DataHub's dataHubViewInfo and read back the same", () => {
    const info = viewInfoOf(view(), 'svc');
    // Entity types as URNs of the server's namespace: DataHub's app reads them back.
    expect((viewInfoOf(view(), 'datahub').definition as { entityTypes: string[] }).entityTypes).toEqual(['urn:li:entityType:datahub.dataset']);
    expect(info).toMatchObject({ name: 'Gold', type: 'PERSONAL', definition: { filter: { or: [{ and: [{ field: TIER, values: ['gold'], condition: 'EQUAL', negated: false }] }] } } });
    expect(viewOf('urn:li:dataHubView:v1', info)).toEqual(view());
  });

  test('an OR view is one branch per filter, and reads back as OR', () => {
    const or = view({ definition: { entityTypes: [], filter: { operator: 'OR', filters: [{ field: 'platform', values: ['hive'] }, { field: TIER, values: ['gold'] }] } } });
    expect(viewOf(or.urn, viewInfoOf(or, 'svc'))?.definition.filter.operator).toBe('OR');
  });

  test('keeps the keywords and the sort of the search it was saved from, and reads them back', () => {
    const saved = view({ definition: parseDefinition({ ...definition, query: ' shop ', sortCriterion: { field: TIER, sortOrder: 'DESCENDING' } }, 'definition') });
    expect(saved.definition).toMatchObject({ query: 'shop', sortCriterion: { field: TIER, sortOrder: 'DESCENDING' } });
    expect(viewInfoOf(saved, 'datahub')).toMatchObject({ definition: { query: 'shop', sortCriterion: { field: TIER, sortOrder: 'DESCENDING' } } });
    expect(viewOf(saved.urn, viewInfoOf(saved, 'datahub'))).toEqual(saved);
  });

  test("without keywords or a sort, its aspect holds DataHub's fields only", () => {
    const plain = view({ definition: parseDefinition({ ...definition, query: '*', sortCriterion: null }, 'definition') });
    expect(Object.keys(viewInfoOf(plain, 'datahub').definition as object).sort()).toEqual(['entityTypes', 'filter']);
  });

  test('a sort is checked as a search checks it, naming the field', () => {
    const field = refusal(() => parseDefinition({ ...definition, sortCriterion: { field: 'size', sortOrder: 'ASCENDING' } }, 'definition'));
    expect(field.field).toBe('definition.sortCriterion.field');
    expect(field.message).toMatch(/cannot sort on "size"/);
    const order = refusal(() => parseDefinition({ ...definition, sortCriterion: { field: 'name', sortOrder: 'UP' } }, 'definition'));
    expect(order.field).toBe('definition.sortCriterion.sortOrder');
  });

  test('an aspect another client wrote in another shape is no view', () => {
    expect(viewOf('urn:li:dataHubView:x', { name: 3 })).toBeNull();
  });
});

describe('a search in a view', () => {
  test("takes the view's types when it names none, and ANDs the view's filter with its own", () => {
    const scoped = scopeByView(view(), { types: [], orFilters: [{ and: [{ field: 'platform', values: ['hive'] }] }] });
    expect(scoped.types).toEqual(['DATASET']);
    expect(scoped.orFilters).toEqual([{ and: [{ field: TIER, values: ['gold'], condition: 'EQUAL' }, { field: 'platform', values: ['hive'] }] }]);
  });

  test('an OR view distributes over the search branches', () => {
    const or = view({ definition: { entityTypes: [], filter: { operator: 'OR', filters: [{ field: 'a', values: ['1'] }, { field: 'b', values: ['2'] }] } } });
    expect(scopeByView(or, { types: ['DATASET'], orFilters: [{ and: [{ field: 'c', values: ['3'] }] }] }).orFilters).toEqual([
      { and: [{ field: 'a', values: ['1'] }, { field: 'c', values: ['3'] }] },
      { and: [{ field: 'b', values: ['2'] }, { field: 'c', values: ['3'] }] },
    ]);
  });

  test('types the view does not cover are refused, naming viewUrn', () => {
    expect(refusal(() => scopeByView(view(), { types: ['CHART'], orFilters: null })).field).toBe('viewUrn');
  });
});
