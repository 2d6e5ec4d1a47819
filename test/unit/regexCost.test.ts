/** docs/metadata-tests.md, "Regular expressions are bounded": which patterns run without a watchdog. */
import { createBoundedMatcher, RegexBoundExceeded } from '../../src/domain/boundedRegex.js';
import { regexShape, worstCaseSteps } from '../../src/domain/regexCost.js';

const anchored = (body: string, flags = '') => new RegExp(`^(?:${body})$`, flags);

describe('the shape of a pattern', () => {
  test.each([
    ['(a+)+', 'a quantified group that holds a quantifier'],
    ['(a*)*b', 'the same, starred'],
    ['(a|a)*', 'a quantified alternation'],
    ['(?:x|xy)+z', 'a quantified alternation in a non-capturing group'],
    ['(a)\\1', 'a backreference'],
    ['(?<n>a)\\k<n>', 'a named group and its backreference'],
    ['a(?=b)', 'a lookahead'],
    ['(?<=a)b', 'a lookbehind'],
    ['((a+)b)+', 'a quantifier two groups down'],
  ])('%s is not bounded (%s)', (body) => {
    expect(regexShape(anchored(body))).toBeNull();
  });

  test.each([
    ['fct_.*', 1, 1],
    ['(?:[a-z]+)_\\d{2,4}', 2, 1],
    ['(gold|silver)-.*', 1, 2],
    ['.*\\.T\\d*[05],PROD\\)', 2, 1],
    ['a{3}', 1, 1],
    ['x{', 0, 1],
    ['[(|*+]+', 1, 1],
    ['\\(\\|\\*\\)', 0, 1],
  ])('%s has %i quantifiers and %i branches', (body, quantifiers, branches) => {
    expect(regexShape(anchored(body))).toMatchObject({ quantifiers, branches });
  });

  test('the worst case grows with the input as (n + 1)^k', () => {
    const shape = regexShape(anchored('.*,.*'))!;
    expect(worstCaseSteps(shape, 9)).toBe(100 * (shape.length + 9));
    expect(worstCaseSteps(shape, 99)).toBe(10_000 * (shape.length + 99));
  });
});

describe('matching', () => {
  test('a pattern bounded for the input runs directly, with the same answers', () => {
    const match = createBoundedMatcher({ matchTimeoutMs: 1 });
    expect(match(anchored('fct_.*'), ['dim_x', 'fct_orders'])).toBe(true);
    expect(match(anchored('fct_.*', 'i'), ['FCT_ORDERS'])).toBe(true);
    expect(match(anchored('fct_.*'), ['dim_x'])).toBe(false);
  });

  test('a catastrophic pattern still runs under the time bound', () => {
    const match = createBoundedMatcher({ matchTimeoutMs: 20, budgetMs: 1000 });
    expect(() => match(anchored('(a+)+'), [`${'a'.repeat(40)}!`])).toThrow(RegexBoundExceeded);
  });

  test('a polynomial pattern on an input too long for its bound runs under the time bound too', () => {
    const re = anchored('.*a.*a.*a.*a.*b');
    const match = createBoundedMatcher({ matchTimeoutMs: 20, budgetMs: 1000 });
    expect(worstCaseSteps(regexShape(re)!, 5000)).toBeGreaterThan(1_000_000);
    expect(() => match(re, ['a'.repeat(5000)])).toThrow(RegexBoundExceeded);
  });
});
