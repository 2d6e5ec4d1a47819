/**
 * The one scheduler (src/platform/turns.ts): how its slices and its queue behave, and that no
 * other module of the server yields the event loop on its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterTurn, endOfPass, inTurn, loopTurn, nextTurn, SLICE_MS } from '../../src/platform/turns.js';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

/** Waits for what loopTurn() asks, if anything. */
async function take(): Promise<void> {
  const wait = loopTurn();
  if (wait) await wait;
}

/** A slice begun and spent: the next ask in this pass must wait. */
async function spendSlice(): Promise<void> {
  await take();
  busy(SLICE_MS + 0.5);
}

describe('loopTurn', () => {
  test('past a slice of work, what waits on the event loop runs first; right after the turn a new slice begins', async () => {
    await spendSlice();
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    const wait = loopTurn();
    expect(wait).toBeInstanceOf(Promise);
    await wait;
    expect(ran).toBe(true);
    // No pause of a loaded machine comes between the resumption and this line that often; allow one.
    const again = loopTurn();
    if (again) await again;
    expect(loopTurn()).toBeUndefined();
  });

  test('the first ask of a pass of the event loop begins a slice: a piece that comes in from I/O goes on at once', async () => {
    await spendSlice();
    // A timer's callback runs in a later pass, as a socket's would.
    const first = await new Promise<Promise<void> | undefined>((resolve) => setTimeout(() => resolve(loopTurn()), 5));
    expect(first).toBeUndefined();
  });

  test('pieces running in one pass share its slice: the second waits once the first spent it', async () => {
    // A pause of a loaded machine between the turn and the first ask spends the slice
    // before the first piece asks (it then waits too, rightly); try again, a few times.
    let pieceA: Promise<void> | undefined;
    for (let attempt = 0; attempt < 5; attempt++) {
      await take();
      pieceA = loopTurn();
      if (pieceA === undefined) break;
      await pieceA;
    }
    busy(SLICE_MS + 0.5);
    const pieceB = loopTurn();
    expect(pieceA).toBeUndefined();
    expect(pieceB).toBeInstanceOf(Promise);
    await pieceB;
  });

  test('pieces that ran out resume one per pass of the event loop, with what else waits in between', async () => {
    const events: string[] = [];
    let probing = true;
    const probe = () => {
      events.push('probe');
      if (probing) setImmediate(probe);
    };
    const piece = async (name: string) => {
      for (let step = 0; step < 5; step++) {
        // Every step spends the slice: each asks for a turn.
        busy(SLICE_MS + 0.5);
        await take();
        events.push(name);
      }
    };
    await spendSlice();
    setImmediate(probe);
    await Promise.all([piece('a'), piece('b'), piece('c')]);
    probing = false;
    const slices = events.filter((e) => e !== 'probe');
    expect(slices).toHaveLength(15);
    // Turns each piece took on its own would resume a, b and c in the same pass, one after the other.
    for (let i = 1; i < events.length; i++) {
      if (events[i] !== 'probe') expect(events[i - 1]).toBe('probe');
    }
    // Round robin: a piece that ran out goes behind the others.
    expect(slices.slice(0, 6)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });
});

describe('nextTurn and afterTurn', () => {
  test('wait their turn in the queue even with the slice fresh, behind the pieces queued before them', async () => {
    const order: string[] = [];
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    afterTurn(() => order.push('first'));
    await nextTurn();
    order.push('second');
    expect(ran).toBe(true);
    expect(order).toEqual(['first', 'second']);
  });
});

describe('endOfPass', () => {
  test('settles after what this pass asked, so asks of one pass can be gathered', async () => {
    const asked: number[] = [];
    const gathered = endOfPass().then(() => [...asked]);
    asked.push(1);
    await Promise.resolve();
    asked.push(2);
    expect(await gathered).toEqual([1, 2]);
  });
});

describe('inTurn', () => {
  test('hands the value back at once while the slice has time left, and at its turn once the slice is spent', async () => {
    const list = [1, 2, 3];
    // Just after a turn the slice has time left, unless the machine took the CPU away for
    // longer than the slice in between (seen beside the full suite): then at a later turn.
    let atOnce = false;
    for (let attempt = 0; attempt < 50 && !atOnce; attempt++) {
      await take();
      atOnce = inTurn(list) === list;
    }
    expect(atOnce).toBe(true);
    busy(SLICE_MS + 1);
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    const later = inTurn(list);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(list);
    expect(ran).toBe(true);
  });
});

/**
 * One scheduler: outside src/platform/turns.ts no server module yields the event loop itself.
 * The TypeScript syntax tree is read (not the text), so comments and strings naming
 * these calls do not count and a call spread over lines does.
 */
describe('one scheduler', () => {
  const SRC = path.resolve('src');
  /**
   * Files and folders allowed, each with its reason. A new entry needs a reason the
   * turns module cannot serve.
   */
  const ALLOWED: ReadonlyArray<{ path: string; reason: string }> = [
    { path: 'platform/turns.ts', reason: 'the scheduler itself' },
    { path: 'console', reason: "the web console runs in the browser, whose event loop is not the server's" },
    { path: 'store/generated', reason: "Prisma's generated client is not ours to judge" },
    { path: 'graphql/generated', reason: 'generated resolver types' },
  ];
  /** A constant of a slice of its own: the slice is SLICE_MS, defined once. */
  const SLICE_NAME = /(SLICE|YIELD|TURN)\w*_MS$|^(yield|turn|slice)\w*Ms$/i;

  function sourceFiles(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (ALLOWED.some((a) => path.join(SRC, a.path) === full)) return [];
      if (entry.isDirectory()) return sourceFiles(full);
      return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
    });
  }

  const isZero = (node: ts.Expression | undefined) => node !== undefined && ts.isNumericLiteral(node) && Number(node.text) === 0;

  /** Each way `text` yields the event loop on its own, as "line: what". */
  function yielders(fileName: string, text: string): string[] {
    const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const found: string[] = [];
    const at = (node: ts.Node, what: string) => found.push(`${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) && ['setImmediate', 'queueMicrotask'].includes(node.text)) {
        const parent = node.parent;
        // A property of that name elsewhere (an object's key, `x.setImmediate` of something else) is no call of it.
        const ownName = (ts.isPropertyAccessExpression(parent) && parent.name === node && !(ts.isIdentifier(parent.expression) && ['globalThis', 'global', 'timers'].includes(parent.expression.text))) || ts.isPropertyAssignment(parent);
        // An import of it is found as the import.
        if (!ownName && !ts.isImportSpecifier(parent)) at(node, node.text);
      }
      if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
        if (node.expression.text === 'process' && node.name.text === 'nextTick') at(node, 'process.nextTick');
        if (node.expression.text === 'scheduler' && ['yield', 'wait'].includes(node.name.text)) at(node, `scheduler.${node.name.text}`);
      }
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'setTimeout' && (node.arguments.length < 2 || isZero(node.arguments[1]))) {
        at(node, 'setTimeout without a delay');
      }
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /^(node:)?timers(\/promises)?$/.test(node.moduleSpecifier.text)) {
        at(node, `import from ${node.moduleSpecifier.text}`);
      }
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && SLICE_NAME.test(node.name.text)) at(node, `a slice of its own (${node.name.text})`);
      if (ts.isPropertyDeclaration(node) && ts.isIdentifier(node.name) && SLICE_NAME.test(node.name.text)) at(node, `a slice of its own (${node.name.text})`);
      if (ts.isParameter(node) && ts.isIdentifier(node.name) && SLICE_NAME.test(node.name.text)) at(node, `a slice of its own (${node.name.text})`);
      ts.forEachChild(node, visit);
    };
    visit(file);
    return found;
  }

  test('no server module outside src/platform/turns.ts yields the event loop itself or keeps a slice of its own', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(300);
    const found = files.flatMap((file) => yielders(file, readFileSync(file, 'utf8')).map((hit) => `${path.relative(SRC, file)}:${hit}`));
    expect(found).toEqual([]);
  });

  test.each([
    ['a raw setImmediate', 'await new Promise<void>((resolve) => setImmediate(resolve));', 'setImmediate'],
    ['setImmediate handed on', 'app.addHook("preHandler", (r, _p, done) => setImmediate(done));', 'setImmediate'],
    ['a zero timeout', 'await new Promise((r) => setTimeout(r, 0));', 'setTimeout without a delay'],
    ['a timeout without a delay', 'setTimeout(next);', 'setTimeout without a delay'],
    ['process.nextTick', 'process.nextTick(next);', 'process.nextTick'],
    ['queueMicrotask', 'queueMicrotask(next);', 'queueMicrotask'],
    ['the timers module', "import { setImmediate as yieldNow } from 'node:timers/promises';", 'import from node:timers/promises'],
    ['scheduler.yield', 'await scheduler.yield();', 'scheduler.yield'],
    ['a slice constant of its own', 'const YIELD_AFTER_MS = 10;', 'a slice of its own (YIELD_AFTER_MS)'],
    ['a budget of its own', 'class T { constructor(private readonly turnBudgetMs = 2) {} }', 'a slice of its own (turnBudgetMs)'],
  ])('the check finds %s', (_name, code, what) => {
    expect(yielders('sample.ts', code)).toEqual([`1: ${what}`]);
  });

  test('the check passes timed waits, and names in comments or strings', () => {
    const code = ["await new Promise((r) => setTimeout(r, early));", '// setImmediate(done) would yield', "log('setImmediate');", 'const options = { setImmediate: true };'].join('\n');
    expect(yielders('sample.ts', code)).toEqual([]);
  });
});
