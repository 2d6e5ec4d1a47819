/**
 * The worst-case work of a backtracking regex, when it can be bounded from the pattern
 * alone. Running every match under a time bound (boundedRegex.ts) costs a watchdog per
 * match, far more than a typical match: evaluating ten tests over a catalog spent most
 * of its time there (BENCHMARKS.md, "Metadata tests across the catalog"). A pattern
 * without the constructs that make backtracking explode (a quantifier inside a
 * quantified group, an alternation inside a quantified group, backreferences,
 * lookarounds) and with k quantifiers tries at most (n + 1)^k ways to split an input of
 * n characters, times its alternatives, each way costing at most its length plus n
 * steps: when that is small for the inputs at hand, the match is known to be fast and
 * needs no watchdog.
 */

/** What the analysis found: null when the pattern may backtrack without a bound. */
export interface RegexShape {
  /** Quantifiers (each may take up to n characters). */
  readonly quantifiers: number;
  /** The product of the alternatives' counts of alternations outside quantified groups. */
  readonly branches: number;
  readonly length: number;
}

interface Group {
  /** Whether a quantifier appeared inside (directly or deeper). */
  quantified: boolean;
  alternatives: number;
}

const shapes = new WeakMap<RegExp, RegexShape | null>();

/** The shape of a compiled pattern (its source), cached. */
export function regexShape(re: RegExp): RegexShape | null {
  let shape = shapes.get(re);
  if (shape === undefined) {
    shape = analyse(re.source);
    shapes.set(re, shape);
  }
  return shape;
}

function analyse(source: string): RegexShape | null {
  let quantifiers = 0;
  let branches = 1;
  const stack: Group[] = [{ quantified: false, alternatives: 1 }];
  /** Whether the last atom was a group that holds a quantifier or an alternation (set when it closes). */
  let lastGroup: Group | null = null;
  let atom = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1];
      // Backreferences (\1, \k<name>) make matching NP-hard.
      if (next === undefined || /[1-9k]/.test(next)) return null;
      i += next === 'u' || next === 'x' || next === 'c' || next === 'p' || next === 'P' ? skipEscape(source, i) : 1;
      atom = true;
      lastGroup = null;
      continue;
    }
    if (c === '[') {
      i = skipClass(source, i);
      if (i < 0) return null;
      atom = true;
      lastGroup = null;
      continue;
    }
    if (c === '(') {
      if (source[i + 1] === '?') {
        const kind = source[i + 2];
        // Lookarounds and named groups' backreferences: not bounded here.
        if (kind === '=' || kind === '!' || kind === '<') return null;
        if (kind !== ':') return null;
        i += 2;
      }
      stack.push({ quantified: false, alternatives: 1 });
      atom = false;
      lastGroup = null;
      continue;
    }
    if (c === ')') {
      const closed = stack.pop();
      if (!closed || stack.length === 0) return null;
      if (closed.quantified) stack[stack.length - 1]!.quantified = true;
      lastGroup = closed;
      atom = true;
      continue;
    }
    if (c === '|') {
      stack[stack.length - 1]!.alternatives++;
      atom = false;
      lastGroup = null;
      continue;
    }
    if (c === '*' || c === '+' || c === '?' || c === '{') {
      if (c === '{') {
        const end = source.indexOf('}', i);
        if (end < 0 || !/^\{\d+(,\d*)?\}$/.test(source.slice(i, end + 1))) {
          // A literal brace.
          atom = true;
          continue;
        }
        i = end;
      }
      if (!atom) return null;
      // A quantifier on a group that holds a quantifier or an alternation: the classic blow-ups.
      if (lastGroup && (lastGroup.quantified || lastGroup.alternatives > 1)) return null;
      if (source[i + 1] === '?') i++;
      quantifiers++;
      stack[stack.length - 1]!.quantified = true;
      atom = false;
      lastGroup = null;
      continue;
    }
    atom = true;
    lastGroup = null;
  }
  if (stack.length !== 1) return null;
  // Alternatives anywhere outside a quantified group multiply the ways to try.
  branches = countBranches(source);
  return { quantifiers, branches, length: source.length };
}

/** The product of alternatives' counts over all groups (an over-estimate of the paths through them). */
function countBranches(source: string): number {
  let product = 1;
  const counts: number[] = [1];
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') i++;
    else if (c === '[') i = skipClass(source, i);
    else if (c === '(') counts.push(1);
    else if (c === '|') counts[counts.length - 1]!++;
    else if (c === ')') product *= counts.pop() ?? 1;
  }
  return product * (counts[0] ?? 1);
}

/** The index of a character class's closing bracket; -1 when there is none. */
function skipClass(source: string, start: number): number {
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === ']') return i;
  }
  return -1;
}

/** How many characters after the backslash an escape takes (\u{...}, \uXXXX, \xXX, \cX, \p{...}). */
function skipEscape(source: string, at: number): number {
  const kind = source[at + 1];
  if ((kind === 'u' || kind === 'p' || kind === 'P') && source[at + 2] === '{') {
    const end = source.indexOf('}', at);
    return end < 0 ? 1 : end - at;
  }
  if (kind === 'u') return 5;
  if (kind === 'x') return 3;
  return 2;
}

/** The most steps a match of a pattern of this shape can take on an input of `length` characters. */
export function worstCaseSteps(shape: RegexShape, length: number): number {
  return shape.branches * (length + 1) ** shape.quantifiers * (shape.length + length);
}
