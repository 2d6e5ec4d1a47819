/**
 * The `testResults` aspect of an asset (docs/contract.md §7, DataHub's TestResults):
 * `{"passing": [{"test": urn, "type": "SUCCESS"}], "failing": [{"test": urn, "type": "FAILURE"}]}`.
 */
import { quoteInput } from './inputLimits.js';
import { parseShape, throwProblems, type Problem } from './shapes/shape.js';
import { MAX_TEST_RESULTS, testResultsShape } from './shapes/testResults.js';
import { tryParseUrn } from './urn.js';

export type TestResultType = 'SUCCESS' | 'FAILURE';

export interface TestResult {
  test: string;
  type: TestResultType;
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

/**
 * The results to store after an evaluation. A run of every test replaces what was
 * stored (results of deleted tests go away); a run of some tests (`testUrns`)
 * replaces only the results of the tests it evaluated, including dropping those that
 * are now out of scope, and keeps the rest.
 */
export function mergeTestResults(current: TestResults | undefined, fresh: TestResults, evaluated: ReadonlySet<string>, everyTest: boolean): TestResults {
  const keep = (list: readonly TestResult[] | undefined) => (everyTest ? [] : (list ?? []).filter((r) => !evaluated.has(r.test)));
  return {
    passing: [...keep(current?.passing), ...fresh.passing].sort(byTest),
    failing: [...keep(current?.failing), ...fresh.failing].sort(byTest),
  };
}
