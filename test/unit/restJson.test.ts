/** REST response JSON (docs/contract.md §4): doubles keep a decimal part, BigInts become strings. */
import { parsesPlainly, stringifyRest } from '../../src/rest/json.js';

test('an integer double is written with .0, at any depth', () => {
  expect(stringifyRest({ values: [{ double: 30 }, { double: -2 }], nested: { a: [{ double: 0 }] } })).toBe(
    '{"values":[{"double":30.0},{"double":-2.0}],"nested":{"a":[{"double":0.0}]}}',
  );
});

test('a double with a fraction or an exponent is written as JavaScript writes it', () => {
  expect(stringifyRest([{ double: 1.5 }, { double: 1e21 }, { double: -1e-7 }])).toBe('[{"double":1.5},{"double":1e+21},{"double":-1e-7}]');
});

test('negative zero is 0.0 and non-finite doubles are null', () => {
  expect(stringifyRest([{ double: -0 }, { double: Number.NaN }, { double: Infinity }])).toBe('[{"double":0.0},{"double":null},{"double":null}]');
});

test('a double key followed by other keys is rewritten, and other number keys are not', () => {
  expect(stringifyRest({ double: 5, count: 5, doubles: 5 })).toBe('{"double":5.0,"count":5,"doubles":5}');
});

test('text that looks like a double inside a string is left alone', () => {
  const value = { string: '{"double":5}', other: ',"double":7}', key: { '{"double":1}': 2 } };
  expect(stringifyRest(value)).toBe(JSON.stringify(value));
});

test('a string under a double key is not a number and is left alone', () => {
  expect(stringifyRest({ double: '5' })).toBe('{"double":"5"}');
});

test('BigInts become strings, and doubles beside them still get .0', () => {
  expect(stringifyRest({ id: 12345678901234567890n, value: { double: 3 } })).toBe('{"id":"12345678901234567890","value":{"double":3.0}}');
});

test('undefined is an empty body', () => {
  expect(stringifyRest(undefined)).toBe('');
});

describe('which request bodies JSON.parse alone may read', () => {
  test('a body with no __proto__ or constructor key and no \\u escape', () => {
    expect(parsesPlainly('[{"urn":"urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)","status":{"value":{"removed":false}}}]')).toBe(true);
  });

  test.each([
    ['a __proto__ key', '{"__proto__":{"polluted":true}}'],
    ['a constructor key', '{"constructor":{"prototype":{"polluted":true}}}'],
    ['a __proto__ key spelled with escapes', '{"\\u005f_proto__":{"polluted":true}}'],
    ['a constructor key spelled with escapes', '{"\\u0063onstructor":{"prototype":{}}}'],
    ['any \\u escape', '{"name":"caf\\u00e9"}'],
    ['a byte-order mark', '\ufeff{"a":1}'],
  ])('not %s: Fastify\'s parser checks those', (_what, text) => {
    expect(parsesPlainly(text)).toBe(false);
  });
});
