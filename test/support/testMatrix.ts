/**
 * The matrices of the fault and conformance suites split between two runs (TEST_MATRIX),
 * pure so that a unit test can show the two parts make the whole.
 */
export type MatrixPart = 'full' | 'first' | 'second';

/**
 * Which part of each suite's matrix (the setups, the releases for the upgrade, the
 * database and namespace a DataHub client replay runs on) a run takes, from
 * TEST_MATRIX: `full` every case; `first` (the default, so `npm test`) and `second`
 * (CI's Node 24 run, `npm run test:node24:rest`) half each. CI thus runs every case
 * once per change, and `npm test` keeps to its time (issue #43: the fault suites were
 * 390 s of its suite time, the same scenarios on both setups; the client replays ran
 * every flow on both databases).
 */
export function matrixPart(env: NodeJS.ProcessEnv = process.env): MatrixPart {
  const part = env.TEST_MATRIX ?? 'first';
  if (part !== 'full' && part !== 'first' && part !== 'second') throw new Error(`TEST_MATRIX=${part}: one of full, first, second`);
  return part;
}

/**
 * This run's part of a suite's cases: every other case, starting at `turn` in the first
 * part and after it in the second. Suites take different turns, so that each setup meets
 * some of the faults in each part; a matrix of one case is run by both.
 */
export function partOfMatrix<T>(cases: readonly T[], turn = 0, part: MatrixPart = matrixPart()): T[] {
  if (part === 'full' || cases.length < 2) return [...cases];
  const offset = (turn + (part === 'second' ? 1 : 0)) % 2;
  return cases.filter((_, i) => i % 2 === offset);
}

/**
 * Every pair of an `a` and a `b`, ordered so that with two of each, either part of the
 * matrix (partOfMatrix) holds both `a`s and both `b`s: the second `a` takes the `b`s in
 * reverse order.
 */
export function pairsForHalves<A, B>(as: readonly A[], bs: readonly B[]): Array<readonly [A, B]> {
  return as.flatMap((a, i) => (i % 2 === 0 ? bs : [...bs].reverse()).map((b) => [a, b] as const));
}
