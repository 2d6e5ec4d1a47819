/**
 * The fault suites' matrix split between two runs (FAULT_MATRIX), pure so that a unit
 * test can show the two parts make the whole.
 */
export type MatrixPart = 'full' | 'first' | 'second';

/**
 * Which part of each fault suite's matrix (the setups, and the releases for the upgrade)
 * a run takes, from FAULT_MATRIX: `full` every case; `first` (the default, so `npm
 * test`) and `second` (CI's Node 24 run, `npm run test:node24:rest`) half each. CI thus
 * runs every case once per change, and `npm test` keeps to its time (issue #43: the
 * fault suites were 390 s of its suite time, the same scenarios on both setups).
 */
export function faultMatrixPart(env: NodeJS.ProcessEnv = process.env): MatrixPart {
  const part = env.FAULT_MATRIX ?? 'first';
  if (part !== 'full' && part !== 'first' && part !== 'second') throw new Error(`FAULT_MATRIX=${part}: one of full, first, second`);
  return part;
}

/**
 * This run's part of a suite's cases: every other case, starting at `turn` in the first
 * part and after it in the second. Suites take different turns, so that each setup meets
 * some of the faults in each part; a matrix of one case is run by both.
 */
export function partOfMatrix<T>(cases: readonly T[], turn = 0, part: MatrixPart = faultMatrixPart()): T[] {
  if (part === 'full' || cases.length < 2) return [...cases];
  const offset = (turn + (part === 'second' ? 1 : 0)) % 2;
  return cases.filter((_, i) => i % 2 === offset);
}
