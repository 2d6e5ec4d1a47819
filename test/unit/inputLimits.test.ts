/** The input limits of docs/contract.md §12: nesting depth, U+0000 and lone surrogates, with the path at fault. */
import { ValidationError } from '../../src/domain/errors.js';
import { checkInputLimits, findInputViolation, formatPath, INPUT_LIMITS, nestingDepth, quoteInput, textViolation } from '../../src/domain/inputLimits.js';
import { thrown } from './thrown.js';

function nested(levels: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

describe('characters', () => {
  test('ordinary text, emoji (a surrogate pair) and other control characters pass', () => {
    expect(textViolation('retention 30 days 🙂 \t\n')).toBeUndefined();
  });

  test('U+0000 is refused with its position', () => {
    expect(textViolation('ab\u0000')).toBe('contains the character U+0000 (at character 3), which cannot be stored; remove it');
  });

  test.each([
    ['a high surrogate at the end', 'x\ud800', 'U+D800 (at character 2)'],
    ['a high surrogate before another character', '\ud83dx', 'U+D83D (at character 1)'],
    ['a low surrogate alone', 'a\udc00b', 'U+DC00 (at character 2)'],
    ['two high surrogates', '\ud800\ud800\udc00', 'U+D800 (at character 1)'],
  ])('%s is a lone surrogate', (_name, text, where) => {
    expect(textViolation(text)).toContain(`contains a lone UTF-16 surrogate ${where}`);
  });
});

describe('finding the first violation', () => {
  test('in a nested string value, with its path', () => {
    expect(findInputViolation({ value: { properties: [{ values: [{ string: 'ok' }, { string: 'x\ud800' }] }] } })?.path).toEqual([
      'value', 'properties', 0, 'values', 1, 'string',
    ]);
  });

  test('in an object key', () => {
    const found = findInputViolation({ a: { 'k\u0000': 1 } });
    expect(found?.path).toEqual(['a', 'k\u0000']);
    expect(found?.reason).toMatch(/^has a key that contains the character U\+0000/);
  });

  test('the first in document order is reported', () => {
    expect(findInputViolation([{ a: '\u0000' }, { b: '\u0000' }])?.path).toEqual([0, 'a']);
  });

  test(`${INPUT_LIMITS.nestingDepth} levels of nesting pass, one more is refused`, () => {
    expect(findInputViolation(nested(INPUT_LIMITS.nestingDepth))).toBeUndefined();
    const found = findInputViolation(nested(INPUT_LIMITS.nestingDepth + 1));
    expect(found?.path).toHaveLength(INPUT_LIMITS.nestingDepth);
    expect(found?.reason).toBe('is nested deeper than the limit of 64 levels of arrays and objects; flatten the value');
  });

  test('100,000 levels are measured without exhausting the stack', () => {
    expect(findInputViolation(nested(100_000))?.reason).toMatch(/nested deeper/);
    expect(nestingDepth(nested(100_000))).toBe(INPUT_LIMITS.nestingDepth + 1);
  });

  test('scalars and shallow values pass', () => {
    for (const v of [null, 1, true, 'text', { a: [1, { b: 'c' }] }]) expect(findInputViolation(v)).toBeUndefined();
  });
});

describe('messages', () => {
  test('paths read like the body: keys with dots, indexes in brackets, odd keys quoted', () => {
    expect(formatPath(['value', 'properties', 0, 'values', 1])).toBe('value.properties[0].values[1]');
    expect(formatPath([0, 'status', 'value'], 'entities')).toBe('entities[0].status.value');
    expect(formatPath(['structured_properties', 'io.acryl.sla'])).toBe('structured_properties["io.acryl.sla"]');
    expect(formatPath([], 'request body')).toBe('request body');
  });

  test('quoted input is cut after 200 characters, saying how much more there was', () => {
    expect(quoteInput('x'.repeat(250))).toBe(`"${'x'.repeat(200)}"… (50 more characters)`);
    expect(quoteInput('a\u0000b')).toBe('"a\\u0000b"');
  });

  test('checkInputLimits throws a ValidationError naming the path', () => {
    const err = thrown(() => checkInputLimits({ value: { description: 'x\ud800' } }, 'request body'));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).field).toBe('value.description');
    expect(err.message).toMatch(/^value\.description contains a lone UTF-16 surrogate U\+D800/);
  });
});
