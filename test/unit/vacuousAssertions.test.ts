/**
 * No test asserts over each item of a collection that may be empty (issue #43). `.every`
 * over an empty list is true, and a loop over one runs no assertion: the tracing suite
 * went on passing on a filter of span names that no longer existed. A test asserting
 * over each item either iterates a literal list it wrote itself, or goes through
 * test/support/nonEmpty.ts (`expectEvery`, `nonEmpty`), which fails on an empty one.
 * The TypeScript syntax tree of every test file is read, so comments and strings do not count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const TEST = path.resolve('test');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const isExpect = (node: ts.Node): node is ts.CallExpression => ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'expect';

function contains(node: ts.Node, found: (n: ts.Node) => boolean): boolean {
  if (found(node)) return true;
  return ts.forEachChild(node, (child) => (contains(child, found) ? true : undefined)) ?? false;
}

function unwrapped(expression: ts.Expression): ts.Expression {
  let e = expression;
  while (ts.isAsExpression(e) || ts.isParenthesizedExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
  return e;
}

/**
 * Whether `expression` is a collection known to hold something without running it: an
 * array literal with an item (or a spread of such), `Array.from({ length: N })` with
 * N > 0, a constant of the file initialised so, or `nonEmpty(...)`, which checks.
 */
function knownNonEmpty(expression: ts.Expression, file: ts.SourceFile, depth = 0): boolean {
  const e = unwrapped(expression);
  if (depth > 4) return false;
  if (ts.isArrayLiteralExpression(e)) return e.elements.some((item) => !ts.isSpreadElement(item) || knownNonEmpty(item.expression, file, depth + 1));
  if (ts.isCallExpression(e)) {
    if (ts.isIdentifier(e.expression) && e.expression.text === 'nonEmpty') return true;
    const length = /^Array\.from\(\{\s*length:\s*(\d+)\s*\}/.exec(e.getText(file));
    return length !== null && Number(length[1]) > 0;
  }
  if (ts.isIdentifier(e)) {
    let initializer: ts.Expression | undefined;
    const find = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === e.text && node.initializer && ts.isVariableDeclarationList(node.parent) && node.parent.flags & ts.NodeFlags.Const) initializer = node.initializer;
      ts.forEachChild(node, find);
    };
    find(file);
    return initializer !== undefined && knownNonEmpty(initializer, file, depth + 1);
  }
  return false;
}

/**
 * Whether `loop` sits in the body of an outer loop that asserts something outside it: the
 * outer loop's items are then checked each (and its own collection is held to this rule),
 * and an empty inner collection (a metric family without labels) is a fact about one item.
 */
function insideAssertingLoop(loop: ts.Node): boolean {
  for (let node = loop.parent; node && !ts.isSourceFile(node); node = node.parent) {
    if (ts.isFunctionLike(node)) return false;
    if (ts.isForOfStatement(node) || ts.isForStatement(node) || ts.isForInStatement(node)) {
      const body = node.statement;
      return contains(body, (n) => isExpect(n) && !(n.pos >= loop.pos && n.end <= loop.end));
    }
  }
  return false;
}

/** Each assertion of `text` over the items of a collection that may be empty, as "line: what". */
function vacuousAssertions(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}: ${what}`);
  const visit = (node: ts.Node): void => {
    const subject = isExpect(node) ? node.arguments[0] : undefined;
    if (subject && ts.isCallExpression(unwrapped(subject))) {
      const call = unwrapped(subject) as ts.CallExpression;
      if (ts.isPropertyAccessExpression(call.expression) && call.expression.name.text === 'every') at(node, 'expect(list.every(...)): use expectEvery');
    }
    if (ts.isForOfStatement(node) && contains(node.statement, isExpect) && !knownNonEmpty(node.expression, file) && !insideAssertingLoop(node)) {
      at(node, `assertions in a loop over ${node.expression.getText(file).slice(0, 60)}: iterate nonEmpty(...)`);
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'forEach' && node.arguments.some((a) => contains(a, isExpect)) && !knownNonEmpty(node.expression.expression, file)) {
      at(node, `assertions in a forEach over ${node.expression.expression.getText(file).slice(0, 60)}: iterate nonEmpty(...)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

test('no test asserts over each item of a collection that may be empty', () => {
  const files = testFiles(TEST);
  expect(files.length).toBeGreaterThan(200);
  const found = files.flatMap((file) => vacuousAssertions(file, readFileSync(file, 'utf8')).map((hit) => `${path.relative(TEST, file)}:${hit}`));
  expect(found).toEqual([]);
});

test.each([
  ['expect(list.every(...)).toBe(true)', 'expect(spans.every((s) => s.ok)).toBe(true);', 'expect(list.every(...)): use expectEvery'],
  ['the same after a filter', "expect(spans.filter((s) => s.name === 'x').every((s) => s.ok)).toBe(true);", 'expect(list.every(...)): use expectEvery'],
  ['a loop of assertions over a list that was read', 'for (const s of spans) expect(s.ok).toBe(true);', 'assertions in a loop over spans: iterate nonEmpty(...)'],
  ['a loop of assertions in a block', 'for (const [k, v] of Object.entries(counts)) {\n  expect(v).toBe(1);\n}', 'assertions in a loop over Object.entries(counts): iterate nonEmpty(...)'],
  ['a forEach of assertions', 'rows.forEach((r) => expect(r).toBeDefined());', 'assertions in a forEach over rows: iterate nonEmpty(...)'],
  ['a loop over a let, which may have been emptied', 'let xs = [1];\nxs = [];\nfor (const x of xs) expect(x).toBe(1);', 'assertions in a loop over xs: iterate nonEmpty(...)'],
  ['an inner loop whose outer loop asserts nothing of its own', 'for (const f of nonEmpty(families)) {\n  for (const l of f.labels) expect(l).toBeDefined();\n}', 'assertions in a loop over f.labels: iterate nonEmpty(...)'],
])('the check finds %s', (_name, code, what) => {
  expect(vacuousAssertions('sample.test.ts', code).map((hit) => hit.replace(/^\d+: /, ''))).toEqual([what]);
});

test('the check passes literal lists, nonEmpty, expectEvery and loops that assert nothing', () => {
  const code = [
    "for (const path of ['/a', '/b']) expect(path).toMatch(/^\\//);",
    'for (const f of nonEmpty(families)) {\n  expect(f.type).toBe("counter");\n  for (const l of f.labels) expect(l).toBeDefined();\n}',
    'const ROUTES = [...[1, 2]];',
    'for (const r of ROUTES) expect(r).toBeGreaterThan(0);',
    'for (const i of Array.from({ length: 3 }, (_, k) => k)) expect(i).toBeLessThan(3);',
    'for (const s of nonEmpty(spans)) expect(s.ok).toBe(true);',
    'expectEvery(spans, (s) => s.ok);',
    'for (const s of spans) total += s.n;',
    '// expect(spans.every((s) => s.ok)).toBe(true);',
  ].join('\n');
  expect(vacuousAssertions('sample.test.ts', code)).toEqual([]);
});
