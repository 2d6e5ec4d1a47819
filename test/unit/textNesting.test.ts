/**
 * Nesting measured on text before it is parsed (issue #29, item 7): JSON's scan reports
 * what the walk over the parsed value reports, and GraphQL's counts brackets outside
 * strings, block strings and comments.
 */
import { findInputViolation } from '../../src/domain/inputLimits.js';
import { jsonNestingViolation } from '../../src/domain/textNesting.js';
import { documentNestingViolation } from '../../src/graphql/documentNesting.js';

const deep = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;

describe('JSON text', () => {
  test.each([
    ['an array at the top', deep(65)],
    ['under object keys', `{"a": {"b\\"c": ${deep(70)}}}`],
    ['after other elements', `[1, "x]", {"k": [2, 3]}, ${deep(80)}]`],
    ['a key with an escape', `{"\\u0061\\\\": [${deep(64)}]}`],
    ['objects all the way', `${'{"k": '.repeat(66)}1${'}'.repeat(66)}`],
  ])('%s: the same path and reason as the walk over the parsed value', (_name, text) => {
    const scanned = jsonNestingViolation(text);
    expect(scanned).toBeDefined();
    expect(scanned).toEqual(findInputViolation(JSON.parse(text)));
  });

  test.each([
    ['64 levels', deep(64)],
    ['brackets inside strings', `["${'['.repeat(100)}", "\\"[[[["]`],
    ['not JSON at all', `]]]${'['.repeat(10)}`],
  ])('%s: nothing to report', (_name, text) => {
    expect(jsonNestingViolation(text)).toBeUndefined();
  });

  test('16 million characters of nesting are measured without building anything', () => {
    const started = Date.now();
    expect(jsonNestingViolation(deep(8_000_000))?.path).toHaveLength(64);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('GraphQL document text', () => {
  test('braces, brackets and parentheses all count; the first one past the limit is located', () => {
    expect(documentNestingViolation('{ a(b: [[1]]) { c } }', 4)).toBeUndefined();
    expect(documentNestingViolation('{ a(b: [[1]]) { c } }', 3)).toEqual({ line: 1, column: 9 });
    expect(documentNestingViolation('query {\n  a { b { c } }\n}', 2)).toEqual({ line: 2, column: 9 });
  });

  test('strings, block strings (with an escaped """) and comments are skipped', () => {
    const text = `# {{{{\n{ a(s: "{[(\\"{", t: """ {{ \\""" {{ """) }`;
    expect(documentNestingViolation(text, 2)).toBeUndefined();
  });
});
