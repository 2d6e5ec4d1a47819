/**
 * The console's search address (issue #41): the sort it holds, spelt as the CLI's --sort,
 * and a saved view made from it and opened as it again.
 */
import { isSearchOfView, searchOfView, viewDefinitionOf } from '../../src/console/lib/savedViews.js';
import { sortByOf, sortOf, sortParam, withSort } from '../../src/console/lib/sortParam.js';

const RETENTION = 'structuredProperties.acme.privacy.retentionDays';

describe('the sort in the address', () => {
  test('names a sort field, or a property by its qualified name, ascending unless :desc', () => {
    expect(sortOf('name')).toEqual({ field: 'name', sortOrder: 'ASCENDING' });
    expect(sortOf('lastModified:desc')).toEqual({ field: 'lastModified', sortOrder: 'DESCENDING' });
    expect(sortOf('acme.privacy.retentionDays:desc')).toEqual({ field: RETENTION, sortOrder: 'DESCENDING' });
    expect(sortOf('')).toBeNull();
    expect(sortOf(null)).toBeNull();
  });

  test('is written back as it is read, a property called like a sort field in full', () => {
    for (const spec of ['name', 'lastModified:desc', 'acme.privacy.retentionDays', 'acme.privacy.retentionDays:desc', 'structuredProperties.name:desc']) {
      expect(sortParam(sortOf(spec)!)).toBe(spec);
    }
    expect(sortOf('structuredProperties.name')).toEqual({ field: 'structuredProperties.name', sortOrder: 'ASCENDING' });
  });

  test("says what it orders by: the name, the last write (any spelling) or a property's value", () => {
    expect(sortByOf({ field: '_entityName', sortOrder: 'ASCENDING' })).toEqual({ kind: 'name' });
    expect(sortByOf({ field: 'lastModifiedTime', sortOrder: 'DESCENDING' })).toEqual({ kind: 'lastModified' });
    expect(sortByOf({ field: RETENTION, sortOrder: 'ASCENDING' })).toEqual({ kind: 'property', qualifiedName: 'acme.privacy.retentionDays' });
  });

  test('is set and removed without touching the rest of the search', () => {
    const params = new URLSearchParams([['q', 'shop'], ['v:acme.privacy.pii', 'sensitive']]);
    expect(withSort(params, { field: 'name', sortOrder: 'DESCENDING' }).toString()).toBe('q=shop&v%3Aacme.privacy.pii=sensitive&sort=name%3Adesc');
    expect(withSort(withSort(params, { field: 'name', sortOrder: 'ASCENDING' }), null).toString()).toBe(params.toString());
  });
});

describe('a saved view of a search', () => {
  const address = new URLSearchParams([
    ['q', 'shop'],
    ['type', 'DATASET'],
    ['platform', 'urn:li:dataPlatform:hive'],
    ['v:acme.ownership.team', 'team-3'],
    ['v:acme.ownership.team', 'team-4'],
    ['min:acme.privacy.retentionDays', '90'],
    ['max:acme.privacy.retentionDays', '365'],
    ['has:acme.privacy.pii', 'no'],
    ['sort', 'acme.privacy.retentionDays:desc'],
  ]);

  test("holds the search as DataHub's view does, types apart, with the keywords and the sort beside", () => {
    expect(viewDefinitionOf(address)).toEqual({
      entityTypes: ['DATASET'],
      filter: {
        operator: 'AND',
        filters: [
          { field: 'platform', values: ['urn:li:dataPlatform:hive'] },
          { field: RETENTION, condition: 'GREATER_THAN_OR_EQUAL_TO', values: ['90'] },
          { field: RETENTION, condition: 'LESS_THAN_OR_EQUAL_TO', values: ['365'] },
          { field: 'structuredProperties.acme.privacy.pii', condition: 'EXISTS', negated: true },
          { field: 'structuredProperties.acme.ownership.team', values: ['team-3', 'team-4'] },
        ],
      },
      query: 'shop',
      sortCriterion: { field: RETENTION, sortOrder: 'DESCENDING' },
    });
  });

  test('opens as the address it was saved from', () => {
    const definition = viewDefinitionOf(address);
    const stored = {
      entityTypes: definition.entityTypes,
      query: definition.query ?? null,
      sortCriterion: definition.sortCriterion ?? null,
      filter: { operator: definition.filter.operator, filters: definition.filter.filters.map((f) => ({ field: f.field, condition: f.condition ?? 'EQUAL', values: f.values ?? [], negated: f.negated ?? false })) },
    };
    const opened = searchOfView(stored);
    expect(opened.left).toEqual([]);
    expect(isSearchOfView(address, stored)).toBe(true);
    expect(isSearchOfView(withSort(address, null), stored)).toBe(false);
  });

  test("says what of another client's view the page cannot show", () => {
    const or = searchOfView({ entityTypes: [], query: null, sortCriterion: null, filter: { operator: 'OR', filters: [{ field: 'platform', condition: 'EQUAL', values: ['a'], negated: false }, { field: 'origin', condition: 'EQUAL', values: ['PROD'], negated: false }] } });
    expect(or.left).toEqual(['any of platform EQUAL a; origin EQUAL PROD (the search page combines filters with AND)']);
    const negated = searchOfView({ entityTypes: [], query: null, sortCriterion: null, filter: { operator: 'AND', filters: [{ field: 'platform', condition: 'EQUAL', values: ['a'], negated: true }] } });
    expect(negated.left).toEqual(['not platform EQUAL a']);
  });
});
