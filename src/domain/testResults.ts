/**
 * The `testResults` aspect of an asset (docs/contract.md §7, DataHub's TestResults):
 * `{"passing": [{"test": urn, "type": "SUCCESS"}], "failing": [{"test": urn, "type": "FAILURE"}]}`.
 */
import { quoteInput } from './inputLimits.js';
import { parseShape, throwProblems, type Problem } from './shapes/shape.js';
import { MAX_TEST_RESULTS, testResultsShape } from './shapes/testResults.js';
import { tryParseUrn } from './urn.js';

export type TestResultType = 'SUCCESS' | 'FAILURE';

/** DataHub's AuditStamp: when (ms since the epoch) and by whom. */
export interface ResultStamp {
  time: number;
  actor: string;
}

export interface TestResult {
  test: string;
  type: TestResultType;
  /** When this outcome was computed (DataHub's lastComputed). */
  lastComputed?: ResultStamp;
  [field: string]: unknown;
}

export interface TestResults {
  passing: TestResult[];
  failing: TestResult[];
}

export { MAX_TEST_RESULTS };

export function parseTestResults(raw: unknown): TestResults {
  const results = parseShape(testResultsShape, raw, 'testResults');
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const key of ['passing', 'failing'] as const) {
    results[key].forEach((r, i) => {
      const parsed = tryParseUrn(r.test);
      if (!parsed.ok || parsed.urn.entityType.name !== 'test') problems.push({ path: [key, i, 'test'], reason: `${quoteInput(r.test)} is not a test urn; write urn:li:test:<id>` });
      else if (seen.has(r.test)) problems.push({ path: [key, i, 'test'], reason: `lists ${r.test} more than once; each test has one result` });
      seen.add(r.test);
    });
  }
  if (results.passing.length + results.failing.length > MAX_TEST_RESULTS) problems.push({ path: [], reason: `holds more than the limit of ${MAX_TEST_RESULTS} results` });
  if (problems.length > 0) throwProblems(problems, 'testResults');
  return raw as TestResults;
}

function byTest(a: TestResult, b: TestResult): number {
  return a.test < b.test ? -1 : a.test > b.test ? 1 : 0;
}

/** The outcomes of the tests run on one entity: test URNs, in no particular order. */
export interface Outcomes {
  readonly passing: readonly string[];
  readonly failing: readonly string[];
}

/**
 * The testResults to store after evaluating `evaluated` (every test when 'all') on an
 * entity, or null when what is stored says the same already. Results of tests not
 * evaluated are kept; an evaluated test that is out of scope now (or gone) loses its
 * result. An outcome that did not change keeps its entry as it was, `lastComputed`
 * included: an entity whose results are the same costs no write, so re-evaluating the
 * catalog writes only what changed. A changed or new outcome is stamped with `stamp`.
 */
export function resultsToStore(current: TestResults | undefined, fresh: Outcomes, evaluated: ReadonlySet<string> | 'all', stamp: ResultStamp): TestResults | null {
  const before = new Map<string, TestResult>();
  for (const r of [...(current?.passing ?? []), ...(current?.failing ?? [])]) before.set(r.test, r);
  const next = new Map<string, TestResult>();
  if (evaluated !== 'all') for (const [test, r] of before) if (!evaluated.has(test)) next.set(test, r);
  const outcome = (test: string, type: TestResultType) => {
    const was = before.get(test);
    next.set(test, was && was.type === type ? was : { test, type, lastComputed: stamp });
  };
  for (const test of fresh.passing) outcome(test, 'SUCCESS');
  for (const test of fresh.failing) outcome(test, 'FAILURE');
  const sameTests = next.size === before.size && [...next].every(([test, r]) => before.get(test) === r);
  if (sameTests) return null;
  const all = [...next.values()].sort(byTest);
  return { passing: all.filter((r) => r.type === 'SUCCESS'), failing: all.filter((r) => r.type === 'FAILURE') };
}
