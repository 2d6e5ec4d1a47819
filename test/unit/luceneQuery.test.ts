/** The REST query grammar (docs/contract.md §6): a Lucene query_string subset, parsed into one FilterNode. */
import fc from 'fast-check';
import { ValidationError } from '../../src/domain/errors.js';
import { parseLuceneQuery } from '../../src/domain/luceneQuery.js';
import { splitKeywords, type FilterNode } from '../../src/domain/searchFilter.js';

const F = 'structuredProperties.io_acryl_privacy_retentionTime';

function errorOf(text: string): ValidationError {
  try {
    parseLuceneQuery(text);
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('parseLuceneQuery', () => {
  test('empty and * match everything', () => {
    expect(parseLuceneQuery('')).toEqual({ kind: 'all' });
    expect(parseLuceneQuery('   ')).toEqual({ kind: 'all' });
    expect(parseLuceneQuery('*')).toEqual({ kind: 'all' });
  });

  test('field:value is equality; the value stays text (leading zeros kept)', () => {
    expect(parseLuceneQuery(`${F}:60`)).toEqual({ kind: 'equals', field: F, values: ['60'] });
    expect(parseLuceneQuery('name:007')).toEqual({ kind: 'equals', field: 'name', values: ['007'] });
  });

  test('field:"quoted value" keeps spaces and unescapes \\" and \\\\', () => {
    expect(parseLuceneQuery('name:"a b \\"c\\" \\\\d"')).toEqual({ kind: 'equals', field: 'name', values: ['a b "c" \\d'] });
  });

  test('comparisons >, >=, <, <= (the range example of docs/contract.md §6)', () => {
    expect(parseLuceneQuery(`${F}:>45`)).toEqual({ kind: 'compare', field: F, op: 'gt', value: '45' });
    expect(parseLuceneQuery(`${F}:>=45.5`)).toEqual({ kind: 'compare', field: F, op: 'gte', value: '45.5' });
    expect(parseLuceneQuery(`${F}:<-1`)).toEqual({ kind: 'compare', field: F, op: 'lt', value: '-1' });
    expect(parseLuceneQuery(`${F}:<="2024-01-01"`)).toEqual({ kind: 'compare', field: F, op: 'lte', value: '2024-01-01' });
  });

  test('ranges [a TO b] and {a TO b} with open ends', () => {
    expect(parseLuceneQuery(`${F}:[30 TO 60]`)).toEqual({
      kind: 'range', field: F, lower: { value: '30', inclusive: true }, upper: { value: '60', inclusive: true },
    });
    expect(parseLuceneQuery(`${F}:{30 TO 60]`)).toEqual({
      kind: 'range', field: F, lower: { value: '30', inclusive: false }, upper: { value: '60', inclusive: true },
    });
    expect(parseLuceneQuery(`${F}:[* TO 60}`)).toEqual({ kind: 'range', field: F, upper: { value: '60', inclusive: false } });
    expect(parseLuceneQuery(`d:["2024-01-01" TO *]`)).toEqual({ kind: 'range', field: 'd', lower: { value: '2024-01-01', inclusive: true } });
  });

  test('_exists_:field and field:* test presence', () => {
    expect(parseLuceneQuery(`_exists_:${F}`)).toEqual({ kind: 'exists', field: F });
    expect(parseLuceneQuery(`${F}:*`)).toEqual({ kind: 'exists', field: F });
  });

  test('versioned field names parse like any other field (docs/contract.md §6)', () => {
    const versioned = 'structuredProperties._versioned.io_acryl_privacy_retentionTime02.20240614080000.string';
    expect(parseLuceneQuery(`${versioned}:foo`)).toEqual({ kind: 'equals', field: versioned, values: ['foo'] });
  });

  test('NOT binds tighter than AND, which binds tighter than OR', () => {
    expect(parseLuceneQuery('a:1 OR b:2 AND NOT c:3')).toEqual({
      kind: 'or',
      items: [
        { kind: 'equals', field: 'a', values: ['1'] },
        { kind: 'and', items: [{ kind: 'equals', field: 'b', values: ['2'] }, { kind: 'not', item: { kind: 'equals', field: 'c', values: ['3'] } }] },
      ],
    });
  });

  test('parentheses group', () => {
    expect(parseLuceneQuery('(a:1 OR b:2) AND c:3')).toEqual({
      kind: 'and',
      items: [{ kind: 'or', items: [{ kind: 'equals', field: 'a', values: ['1'] }, { kind: 'equals', field: 'b', values: ['2'] }] }, { kind: 'equals', field: 'c', values: ['3'] }],
    });
  });

  test('backslash escapes special characters in words', () => {
    expect(parseLuceneQuery('urn:urn\\:li\\:dataset\\:\\(x\\)')).toEqual({ kind: 'equals', field: 'urn', values: ['urn:li:dataset:(x)'] });
  });

  test('a value may be a URN as pasted: colons and its own parentheses stay in it (issue #41: "position 17")', () => {
    expect(parseLuceneQuery('failingTests:urn:li:test:retention')).toEqual({ kind: 'equals', field: 'failingTests', values: ['urn:li:test:retention'] });
    const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
    expect(parseLuceneQuery(`(urn:${dataset} OR failingTests:urn:li:test:t1) AND NOT a:1`)).toEqual({
      kind: 'and',
      items: [
        { kind: 'or', items: [{ kind: 'equals', field: 'urn', values: [dataset] }, { kind: 'equals', field: 'failingTests', values: ['urn:li:test:t1'] }] },
        { kind: 'not', item: { kind: 'equals', field: 'a', values: ['1'] } },
      ],
    });
    expect(errorOf('urn:urn:li:dataset:(x').message).toMatch(/^Invalid query at position 5: a "\(" in the value is not closed/);
  });

  test('a bare word or quoted phrase is a keyword; words side by side are one keyword search (docs/contract.md §12)', () => {
    expect(parseLuceneQuery('clicks')).toEqual({ kind: 'keyword', text: 'clicks' });
    expect(parseLuceneQuery('daily clicks')).toEqual({ kind: 'keyword', text: 'daily clicks' });
    expect(parseLuceneQuery('"daily clicks"')).toEqual({ kind: 'keyword', text: '"daily clicks"' });
    expect(parseLuceneQuery('daily clicks AND platform:hive')).toEqual({
      kind: 'and',
      items: [{ kind: 'keyword', text: 'daily clicks' }, { kind: 'equals', field: 'platform', values: ['hive'] }],
    });
  });

  test('keywords combine with the rest of the query by AND only', () => {
    expect(splitKeywords(parseLuceneQuery('clicks AND a:1'))).toEqual({ keywords: 'clicks', filter: { kind: 'equals', field: 'a', values: ['1'] } });
    expect(splitKeywords(parseLuceneQuery('clicks'))).toEqual({ keywords: 'clicks', filter: { kind: 'all' } });
    expect(splitKeywords(parseLuceneQuery('a:1'))).toEqual({ keywords: null, filter: { kind: 'equals', field: 'a', values: ['1'] } });
    for (const q of ['clicks OR a:1', 'NOT clicks', 'a:1 AND (clicks OR b:2)']) expect(() => splitKeywords(parseLuceneQuery(q))).toThrow(/only be combined .* by AND/);
  });

  test.each([
    ['a keyword after a field clause without an operator', 'a:1 orders', 5, /expected AND or OR/],
    ['a wildcard in a keyword', 'ord*', 1, /wildcards are not supported in keywords/],
    ['two clauses without an operator', 'a:1 b:2', 5, /expected AND or OR/],
    ['an unclosed parenthesis', '(a:1', 5, /expected "\)"/],
    ['an unbalanced closing parenthesis', 'a:1)', 4, /unbalanced/],
    ['a missing value', 'a:', 3, /expected a value/],
    ['an unterminated quote', 'a:"x', 3, /unterminated/],
    ['a wildcard in a word', 'a:fo*', 3, /wildcards are not supported/],
    ['a range without TO', 'a:[1 2]', 6, /expected TO/],
    ['a dangling AND', 'a:1 AND', 8, /expected a clause/],
    ['a lowercase operator', 'a:1 and b:2', 5, /expected AND or OR/],
  ])('rejects %s with the 1-based position', (_what, text, position, message) => {
    const err = errorOf(text);
    expect(err.message).toMatch(new RegExp(`^Invalid query at position ${position}: `));
    expect(err.message).toMatch(message);
    expect(err.field).toBe('query');
  });

  test('rejects over-deep nesting and over-long queries instead of overflowing the stack', () => {
    expect(errorOf(`${'('.repeat(200)}a:1${')'.repeat(200)}`).message).toMatch(/nests deeper/);
    expect(errorOf('NOT '.repeat(200) + 'a:1').message).toMatch(/nests deeper/);
    expect(errorOf(`a:"${'x'.repeat(20_000)}"`).message).toMatch(/longer than/);
  });

  // Property: printing any filter tree in the grammar and parsing it back gives the tree.
  const word = fc.stringMatching(/^[A-Za-z0-9_.-]{1,8}$/).filter((w) => !['AND', 'OR', 'NOT', 'TO'].includes(w));
  const text = fc.string({ maxLength: 8 });
  const leaf: fc.Arbitrary<FilterNode> = fc.oneof(
    fc.record({ kind: fc.constant('equals' as const), field: word, values: fc.tuple(text) }),
    fc.record({ kind: fc.constant('compare' as const), field: word, op: fc.constantFrom('gt' as const, 'gte' as const, 'lt' as const, 'lte' as const), value: text }),
    fc.record({ kind: fc.constant('exists' as const), field: word }),
  );
  const tree = fc.letrec<{ node: FilterNode }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.record({ kind: fc.constant('and' as const), items: fc.array(tie('node'), { minLength: 2, maxLength: 3 }) }),
      fc.record({ kind: fc.constant('or' as const), items: fc.array(tie('node'), { minLength: 2, maxLength: 3 }) }),
      fc.record({ kind: fc.constant('not' as const), item: tie('node') }),
    ),
  })).node;
  const q = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const print = (n: FilterNode): string => {
    switch (n.kind) {
      case 'and':
        return `(${n.items.map(print).join(' AND ')})`;
      case 'or':
        return `(${n.items.map(print).join(' OR ')})`;
      case 'not':
        return `NOT ${print(n.item)}`;
      case 'equals':
        return `${n.field}:${q(n.values[0]!)}`;
      case 'compare':
        return `${n.field}:${{ gt: '>', gte: '>=', lt: '<', lte: '<=' }[n.op]}${q(n.value)}`;
      case 'exists':
        return `_exists_:${n.field}`;
      default:
        throw new Error('not generated');
    }
  };
  // The parser flattens nothing but nested groups of the same operator stay nested, as printed.
  test('print then parse is the identity on filter trees', () => {
    fc.assert(fc.property(tree, (node) => expect(parseLuceneQuery(print(node))).toEqual(node)), { numRuns: 300 });
  });
});
