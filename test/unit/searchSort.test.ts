/** The sort fields clients name, and the cursor of a sorted scroll (docs/search.md, "Sorts"). */
import { ValidationError } from '../../src/domain/errors.js';
import { SORT_FIELDS, sortKeyOf } from '../../src/domain/searchSort.js';
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
    expect(refuse).toThrow(`sortInput.sortCriteria[0].field cannot sort on "toString"; sort on one of ${Object.keys(SORT_FIELDS).join(', ')}`);
  });
});

describe('sorted scroll cursors', () => {
  test('round-trip the key, the direction and the position', () => {
    for (const cursor of [
      { order: 'sorted', by: '_ct', direction: 'desc', offset: 20 },
      { order: 'sorted', by: '_nm', direction: 'asc', offset: 0 },
    ] as const) {
      expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
    }
  });

  test('a cursor naming a key that is not a sort key is refused', () => {
    expect(() => decodeCursor(Buffer.from('s:_zz:a:1').toString('base64url'))).toThrow('scrollId is not a valid cursor');
  });
});
