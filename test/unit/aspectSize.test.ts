/** Issue #14: one aspect's JSON is bounded, measured without building it, refused with the limit named. */
import { checkAspectSize, jsonLongerThan } from '../../src/domain/aspectSize.js';
import { LIMITS } from '../../src/domain/limits.js';
import { thrown } from './thrown.js';

test.each([
  ['a string', 'x'.repeat(100)],
  ['numbers and literals', [1, 22.5, true, false, null]],
  ['nested objects', { a: { b: [{ c: 'd' }, { e: 12345 }] }, f: 'g' }],
  ['an empty object and list', { a: {}, b: [] }],
])('%s measures at least its JSON length, and not much more', (_what, value) => {
  const length = JSON.stringify(value).length;
  expect(jsonLongerThan(value, length - 1)).toBe(true);
  expect(jsonLongerThan(value, length + 8)).toBe(false);
});

test('a value far over the limit is refused without walking it whole', () => {
  let visited = 0;
  const field = {
    get fieldPath() {
      visited++;
      return 'x'.repeat(20);
    },
  };
  const huge = { fields: Array.from({ length: 100_000 }, () => field) };
  expect(jsonLongerThan(huge, 1000)).toBe(true);
  expect(visited).toBeLessThan(100);
});

test('an aspect over the limit is a validation error naming the aspect and the limit', () => {
  const error = thrown(() => checkAspectSize('schemaMetadata', { fields: ['x'.repeat(LIMITS.aspectJsonLength)] }));
  expect(error).toMatchObject({ code: 'VALIDATION_FAILED', field: 'schemaMetadata' });
  expect(error.message).toBe(`schemaMetadata is larger than the limit of ${LIMITS.aspectJsonLength} characters of JSON for one aspect`);
  expect(() => checkAspectSize('schemaMetadata', { fields: ['x'.repeat(1000)] })).not.toThrow();
});
