/** The sort fields clients name, and the cursor of a sorted scroll (docs/search.md, "Sorts"). */
import { ValidationError } from '../../src/domain/errors.js';
import { orderByValue, pageSortOf, SORT_FIELDS, sortKeyOf } from '../../src/domain/searchSort.js';
import { decodeCursor, encodeCursor } from '../../src/search/cursor.js';

describe('sort fields', () => {
  test.each([
    ['urn', 'urn'],
    ['createdTime', 'created'],
    ['lastModifiedTime', 'modified'],
    ['lastOperationTime', 'modified'],
    ['_entityName', 'name'],
    ['displayName', 'name'],
  ])('%s sorts on %s', (field, key) => {
    expect(sortKeyOf(field, 'sort')).toBe(key);
  });

  test('another field is a ValidationError naming it, the parameter and every field there is', () => {
    const refuse = () => sortKeyOf('toString', 'sortInput.sortCriteria[0].field');
    expect(refuse).toThrow(ValidationError);
    expect(refuse).toThrow(`sortInput.sortCriteria[0].field cannot sort on "toString"; sort on one of ${Object.keys(SORT_FIELDS).join(', ')} or structuredProperties.<qualified name>`);
  });

  test('structuredProperties.<qualified name> sorts on the property; a malformed one is refused naming the parameter', () => {
    expect(pageSortOf('structuredProperties.acme.tier', 'sort')).toEqual({ property: 'structuredProperties.acme.tier' });
    expect(pageSortOf('createdTime', 'sort')).toEqual({ key: 'created' });
    expect(() => pageSortOf('structuredProperties.', 'sort')).toThrow(/^sort: Invalid search field/);
  });
});

describe("ordering by a property's value", () => {
  const hits = ['urn:a', 'urn:b', 'urn:c', 'urn:d'].map((urn) => ({ urn }));
  const order = (values: Record<string, Array<{ double: number } | { string: string }>>, direction: 'asc' | 'desc') =>
    orderByValue(hits, new Map(Object.entries(values)), direction).map((h) => h.urn);

  test('numbers by value, not by their text', () => {
    expect(order({ 'urn:a': [{ double: 100 }], 'urn:b': [{ double: 9 }], 'urn:c': [{ double: 30 }] }, 'asc')).toEqual(['urn:b', 'urn:c', 'urn:a', 'urn:d']);
  });

  test('several values: the smallest ascending, the largest descending', () => {
    const values = { 'urn:a': [{ double: 10 }, { double: 90 }], 'urn:b': [{ double: 50 }] };
    expect(order(values, 'asc')).toEqual(['urn:a', 'urn:b', 'urn:c', 'urn:d']);
    expect(order(values, 'desc')).toEqual(['urn:a', 'urn:b', 'urn:c', 'urn:d']);
    expect(order({ 'urn:a': [{ double: 10 }, { double: 40 }], 'urn:b': [{ double: 50 }] }, 'desc')).toEqual(['urn:b', 'urn:a', 'urn:c', 'urn:d']);
  });

  test('text case ignored; without a value last in both directions; ties by URN', () => {
    const values = { 'urn:b': [{ string: 'gold' }], 'urn:c': [{ string: 'Bronze' }], 'urn:d': [{ string: 'gold' }] };
    expect(order(values, 'asc')).toEqual(['urn:c', 'urn:b', 'urn:d', 'urn:a']);
    expect(order(values, 'desc')).toEqual(['urn:b', 'urn:d', 'urn:c', 'urn:a']);
  });
});

describe('sorted scroll cursors', () => {
  test('round-trip the key, the direction and the position', () => {
    for (const cursor of [
      { order: 'sorted', by: '_ct', direction: 'desc', offset: 20 },
      { order: 'sorted', by: '_nm', direction: 'asc', offset: 0 },
      { order: 'byValue', direction: 'desc', offset: 7 },
    ] as const) {
      expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
    }
  });

  test('a cursor naming a key that is not a sort key is refused', () => {
    expect(() => decodeCursor(Buffer.from('s:_zz:a:1').toString('base64url'))).toThrow('scrollId is not a valid cursor');
  });
});
