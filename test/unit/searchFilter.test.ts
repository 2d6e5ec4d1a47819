/** GraphQL orFilters (docs/contract.md §6) become the same filter tree as REST queries; constants fold away. */
import { ValidationError } from '../../src/domain/errors.js';
import { fieldsOf, filterFromOrFilters, mapLeaves, NONE, simplify, type FilterNode } from '../../src/domain/searchFilter.js';
import { closestName } from '../../src/domain/closestWord.js';
import { keyFieldInfo, parseSearchField } from '../../src/domain/searchFields.js';

const P = 'structuredProperties.io.acryl.privacy.retentionTime';

describe('filterFromOrFilters', () => {
  test('absent, empty, or an empty AND match everything', () => {
    expect(filterFromOrFilters(undefined)).toEqual({ kind: 'all' });
    expect(filterFromOrFilters([])).toEqual({ kind: 'all' });
    expect(filterFromOrFilters([{ and: [] }])).toEqual({ kind: 'all' });
    expect(filterFromOrFilters([{ and: null }, { and: [{ field: 'name', values: ['x'] }] }])).toEqual({ kind: 'all' });
  });

  test('EQUAL is the default condition, and several values match any of them (as IN)', () => {
    expect(filterFromOrFilters([{ and: [{ field: P, values: ['30.0', '60.0'] }] }])).toEqual({ kind: 'equals', field: P, values: ['30.0', '60.0'] });
    expect(filterFromOrFilters([{ and: [{ field: P, condition: 'IN', values: ['30.0'] }] }])).toEqual({ kind: 'equals', field: P, values: ['30.0'] });
  });

  test('the conditions DataHub documents: GREATER_THAN, EXISTS and EQUAL', () => {
    expect(filterFromOrFilters([{ and: [{ field: P, condition: 'GREATER_THAN', values: ['45.0'] }] }])).toEqual({ kind: 'compare', field: P, op: 'gt', value: '45.0' });
    expect(filterFromOrFilters([{ and: [{ field: P, condition: 'EXISTS' }] }])).toEqual({ kind: 'exists', field: P });
  });

  test.each([
    ['GREATER_THAN_OR_EQUAL_TO', 'gte'],
    ['LESS_THAN', 'lt'],
    ['LESS_THAN_OR_EQUAL_TO', 'lte'],
  ] as const)('%s compares with %s', (condition, op) => {
    expect(filterFromOrFilters([{ and: [{ field: P, condition, values: ['1'] }] }])).toEqual({ kind: 'compare', field: P, op, value: '1' });
  });

  test('CONTAIN, START_WITH, END_WITH match any of the values', () => {
    expect(filterFromOrFilters([{ and: [{ field: 'name', condition: 'START_WITH', values: ['a', 'b'] }] }])).toEqual({
      kind: 'or',
      items: [
        { kind: 'text', field: 'name', op: 'startsWith', value: 'a' },
        { kind: 'text', field: 'name', op: 'startsWith', value: 'b' },
      ],
    });
    expect(filterFromOrFilters([{ and: [{ field: 'name', condition: 'CONTAIN', values: ['a'] }] }])).toEqual({ kind: 'text', field: 'name', op: 'contains', value: 'a' });
    expect(filterFromOrFilters([{ and: [{ field: 'name', condition: 'END_WITH', values: ['a'] }] }])).toEqual({ kind: 'text', field: 'name', op: 'endsWith', value: 'a' });
  });

  test('negated wraps the condition in NOT', () => {
    expect(filterFromOrFilters([{ and: [{ field: P, condition: 'EXISTS', negated: true }] }])).toEqual({ kind: 'not', item: { kind: 'exists', field: P } });
  });

  test('an OR of ANDs', () => {
    const node = filterFromOrFilters([
      { and: [{ field: 'origin', values: ['PROD'] }, { field: P, condition: 'EXISTS' }] },
      { and: [{ field: 'name', values: ['x'] }] },
    ]);
    expect(node).toEqual({
      kind: 'or',
      items: [
        { kind: 'and', items: [{ kind: 'equals', field: 'origin', values: ['PROD'] }, { kind: 'exists', field: P }] },
        { kind: 'equals', field: 'name', values: ['x'] },
      ],
    });
    expect(fieldsOf(node)).toEqual(['origin', P, 'name']);
  });

  test.each([
    ['no values for EQUAL', { field: P }, /needs at least one value/],
    ['two values for a comparison', { field: P, condition: 'LESS_THAN', values: ['1', '2'] }, /exactly one value/],
    ['an unknown condition', { field: P, condition: 'LIKE', values: ['1'] }, /not one of/],
    ['an empty field', { field: ' ', values: ['1'] }, /field must be/],
  ])('rejects %s', (_what, filter, message) => {
    expect(() => filterFromOrFilters([{ and: [filter as never] }])).toThrow(ValidationError);
    expect(() => filterFromOrFilters([{ and: [filter as never] }])).toThrow(message);
  });
});

describe('simplify and mapLeaves', () => {
  const a: FilterNode = { kind: 'exists', field: 'a' };
  const b: FilterNode = { kind: 'exists', field: 'b' };

  test('none absorbs AND and vanishes from OR; all does the opposite; NOT flips them', () => {
    expect(simplify({ kind: 'and', items: [a, NONE] })).toEqual(NONE);
    expect(simplify({ kind: 'or', items: [a, NONE] })).toEqual(a);
    expect(simplify({ kind: 'or', items: [a, { kind: 'all' }] })).toEqual({ kind: 'all' });
    expect(simplify({ kind: 'and', items: [a, { kind: 'all' }] })).toEqual(a);
    expect(simplify({ kind: 'not', item: NONE })).toEqual({ kind: 'all' });
    expect(simplify({ kind: 'not', item: { kind: 'not', item: a } })).toEqual(a);
  });

  test('a filter on an unknown property matches nothing, and NOT of it everything', () => {
    const unknown = (leaf: FilterNode & { field: string }): FilterNode => (leaf.field === 'b' ? NONE : leaf);
    expect(mapLeaves({ kind: 'and', items: [a, b] }, unknown)).toEqual(NONE);
    expect(mapLeaves({ kind: 'or', items: [a, b] }, unknown)).toEqual(a);
    expect(mapLeaves({ kind: 'not', item: b }, unknown)).toEqual({ kind: 'all' });
  });
});

describe('parseSearchField', () => {
  test('key fields', () => {
    for (const name of ['urn', 'name', 'platform', 'origin', 'removed', 'valueType', 'entityTypes']) expect(parseSearchField(name)).toEqual({ kind: 'key', name });
    expect(parseSearchField('entityType')).toEqual({ kind: 'key', name: '_entityType' });
  });

  test("DataHub's SDK field names: the .keyword form, env for origin, and the fields of assets' common aspects", () => {
    expect(parseSearchField('platform.keyword')).toEqual({ kind: 'key', name: 'platform' });
    expect(parseSearchField('origin.keyword')).toEqual({ kind: 'key', name: 'origin' });
    expect(parseSearchField('env')).toEqual({ kind: 'key', name: 'origin' });
    expect(parseSearchField('_entityType.keyword')).toEqual({ kind: 'key', name: '_entityType' });
    for (const name of ['typeNames', 'domains', 'container', 'owners', 'tags', 'glossaryTerms', 'customProperties', 'failingTests', 'passingTests', 'isHidden', 'showInColumnsTable', 'showInAssetSummary']) {
      expect(parseSearchField(name)).toEqual({ kind: 'key', name });
    }
  });

  test('a bare tag, owner, domain or term is its URN', () => {
    expect(keyFieldInfo('tags').normalize!('pii')).toBe('urn:li:tag:pii');
    expect(keyFieldInfo('owners').normalize!('jdoe')).toBe('urn:li:corpuser:jdoe');
    expect(keyFieldInfo('owners').normalize!('urn:li:corpGroup:team')).toBe('urn:li:corpGroup:team');
    expect(keyFieldInfo('failingTests').normalize!('owner-set')).toBe('urn:li:test:owner-set');
  });

  test('key field values are put into the form the index holds (docs/contract.md §12: platform:hive)', () => {
    expect(keyFieldInfo('platform').normalize!('hive')).toBe('urn:li:dataPlatform:hive');
    expect(keyFieldInfo('platform').normalize!('urn:li:dataPlatform:hive')).toBe('urn:li:dataPlatform:hive');
    expect(keyFieldInfo('valueType').normalize!('urn:li:dataType:datahub.number')).toBe('number');
    expect(keyFieldInfo('valueType').normalize!('STRING')).toBe('string');
    expect(keyFieldInfo('entityTypes').normalize!('urn:li:entityType:svc.schemaField')).toBe('schemaField');
    expect(keyFieldInfo('_entityType').normalize!('SCHEMA_FIELD')).toBe('schemaField');
    expect(() => keyFieldInfo('valueType').normalize!('colour')).toThrow(ValidationError);
  });

  test('closestName suggests the nearest name by edit distance', () => {
    const names = ['io_acryl_privacy_retentionTime', 'io_acryl_privacy_owner', 'retention'];
    expect(closestName('io_acryl_privacy_retentionTme', names)).toBe('io_acryl_privacy_retentionTime');
    expect(closestName('io_acryl_privacy_ownr', names)).toBe('io_acryl_privacy_owner');
    expect(closestName('x', [])).toBeUndefined();
  });

  test('GraphQL (dots kept) and REST (dots as underscores) names reach the same search field', () => {
    expect(parseSearchField('structuredProperties.io.acryl.privacy.retentionTime')).toEqual({ kind: 'property', searchField: 'io_acryl_privacy_retentionTime' });
    expect(parseSearchField('structuredProperties.io_acryl_privacy_retentionTime')).toEqual({ kind: 'property', searchField: 'io_acryl_privacy_retentionTime' });
  });

  test('versioned names carry the version and the value type', () => {
    expect(parseSearchField('structuredProperties._versioned.io_acryl_privacy_retentionTime02.20240614080000.string')).toEqual({
      kind: 'property',
      searchField: 'io_acryl_privacy_retentionTime02',
      versioned: { version: '20240614080000', valueType: 'string' },
    });
  });

  test.each([
    'colour',
    'structuredProperties.',
    'structuredProperties._versioned.x.2024.string',
    'structuredProperties._versioned.x.20240614080000.text',
    'structuredProperties._versioned.20240614080000.number',
  ])('rejects %s', (name) => {
    expect(() => parseSearchField(name)).toThrow(ValidationError);
  });
});
