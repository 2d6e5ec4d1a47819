/** Structural equality of JSON values, as JSON Patch `test` and value comparisons use it. */
import { jsonEqual } from '../../src/domain/json.js';

test('objects with the same members in another key order are equal', () => {
  expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
});

test('objects with different member values are not equal', () => {
  expect(jsonEqual({ a: 1 }, { a: 2 })).toBe(false);
});

test('an object with an extra member is not equal', () => {
  expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
});

test('objects with the same number of members but different keys are not equal', () => {
  expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false);
});

test('arrays with the same elements in another order are not equal', () => {
  expect(jsonEqual([1, 2], [2, 1])).toBe(false);
});

test('arrays of different lengths are not equal', () => {
  expect(jsonEqual([1], [1, 1])).toBe(false);
});

test('an array and an object with index keys are not equal', () => {
  expect(jsonEqual(['x'], { 0: 'x' })).toBe(false);
});

test('an object and an array with index keys are not equal', () => {
  expect(jsonEqual({ 0: 'x' }, ['x'])).toBe(false);
});

test('a number and the same number as a string are not equal', () => {
  expect(jsonEqual(1, '1')).toBe(false);
});

test('null equals only null', () => {
  expect([jsonEqual(null, null), jsonEqual(null, {}), jsonEqual({}, null)]).toEqual([true, false, false]);
});

test('30 and 30.0 are the same JSON number', () => {
  expect(jsonEqual({ double: 30 }, { double: 30.0 })).toBe(true);
});

test('an inherited member does not count as present', () => {
  expect(jsonEqual({ toString: 1 }, {})).toBe(false);
});
