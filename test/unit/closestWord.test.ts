/** The one edit distance behind every "did you mean" (src/domain/closestWord.ts). */
import { closestName, closestWord, editDistance } from '../../src/domain/closestWord.js';

describe('editDistance', () => {
  test.each([
    ['', '', 0],
    ['number', 'number', 0],
    ['numbr', 'number', 1],
    ['nubmer', 'number', 1],
    ['kitten', 'sitting', 3],
    ['abc', '', 3],
    ['io_acryl_ownre', 'io_acryl_owner', 1],
    ['io.acryl.retention_days', 'io.acryl.retention_hours', 4],
  ])('%j to %j is %i (an adjacent swap counts one)', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });

  test('with a limit it answers the limit once the distance cannot be below it, and the distance when it is', () => {
    expect(editDistance('kitten', 'sitting', 2)).toBe(2);
    expect(editDistance('a', 'abcdefgh', 3)).toBe(3);
    expect(editDistance('kitten', 'sitting', 4)).toBe(3);
  });
});

test('closestWord answers a known word only when the typo is close enough for its length', () => {
  expect(closestWord('Numbr', ['string', 'number'])).toBe('number');
  expect(closestWord('qqqqqq', ['string', 'number'])).toBeUndefined();
  expect(closestWord('x'.repeat(101), ['x'])).toBeUndefined();
});

test('closestName answers the nearest name however far, the first of equals, and nothing among none', () => {
  expect(closestName('io_acryl_ownr', ['io_acryl_tier', 'io_acryl_owner'])).toBe('io_acryl_owner');
  expect(closestName('zzzz', ['ab', 'cd'])).toBe('ab');
  expect(closestName('x', [])).toBeUndefined();
});
