/**
 * Nesting of a GraphQL document, measured on its text before graphql-js parses it
 * (issue #29). The parser descends once per selection set, list or argument list, so
 * about 2,000 nested selection sets, well within the token limit, overflowed its stack
 * (a 500). Braces, brackets and parentheses outside strings, block strings and comments
 * are counted in one linear pass; the selection-depth and literal limits (limits.ts,
 * inputLimits.ts) then apply to what parses.
 */

const HASH = 0x23;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const OPENERS = new Set([0x7b, 0x5b, 0x28]);
const CLOSERS = new Set([0x7d, 0x5d, 0x29]);

/** Where a string, block string or comment starting at `at` ends (the index of its last character). */
function skipped(source: string, at: number): number {
  if (source.charCodeAt(at) === HASH) {
    for (let i = at + 1; i < source.length; i++) {
      const c = source.charCodeAt(i);
      if (c === NEWLINE || c === RETURN) return i;
    }
    return source.length;
  }
  if (source.startsWith('"""', at)) {
    // A block string ends at the first """ not escaped as \""".
    for (let i = source.indexOf('"""', at + 3); i >= 0; i = source.indexOf('"""', i + 1)) {
      if (source.charCodeAt(i - 1) !== BACKSLASH) return i + 2;
    }
    return source.length;
  }
  for (let i = at + 1; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE || c === NEWLINE || c === RETURN) return i;
  }
  return source.length;
}

/** The line and column (1-based) of the first bracket nested deeper than `limit`; undefined when there is none. */
export function documentNestingViolation(source: string, limit: number): { line: number; column: number } | undefined {
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === HASH || c === QUOTE) i = skipped(source, i);
    else if (OPENERS.has(c)) {
      if (++depth > limit) {
        const before = source.slice(0, i);
        const lineStart = Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r')) + 1;
        return { line: before.split(/\r\n|\r|\n/).length, column: i - lineStart + 1 };
      }
    } else if (CLOSERS.has(c) && depth > 0) depth--;
  }
  return undefined;
}
