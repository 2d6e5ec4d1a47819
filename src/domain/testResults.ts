/**
 * The `testResults` aspect of an asset (SPEC 7, DataHub's TestResults):
 * `{"passing": [{"test": urn, "type": "SUCCESS"}], "failing": [{"test": urn, "type": "FAILURE"}]}`.
 */
import { ValidationError } from './errors.js';
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

export const MAX_TEST_RESULTS = 10_000;

function parseList(raw: unknown, key: 'passing' | 'failing', seen: Set<string>): TestResult[] {
  if (!Array.isArray(raw)) throw new ValidationError(`testResults.${key} is required and must be a list`, key);
  const expected: TestResultType = key === 'passing' ? 'SUCCESS' : 'FAILURE';
  return raw.map((entry, i) => {
    const at = `${key}[${i}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new ValidationError(`testResults.${at} must be an object`, at);
    const e = entry as Record<string, unknown>;
    const extra = Object.keys(e).filter((k) => !['test', 'type', 'testDefinitionMd5', 'lastComputed'].includes(k));
    if (extra.length > 0) throw new ValidationError(`Unknown field in testResults.${at}: ${extra[0]}`, `${at}.${extra[0]}`);
    const parsed = typeof e.test === 'string' ? tryParseUrn(e.test) : undefined;
    if (!parsed?.ok || parsed.urn.entityType.name !== 'test') throw new ValidationError(`testResults.${at}.test must be a test urn (urn:li:test:<id>)`, `${at}.test`);
    if (e.type !== expected) throw new ValidationError(`testResults.${at}.type must be ${expected}`, `${at}.type`);
    if (e.testDefinitionMd5 !== undefined && typeof e.testDefinitionMd5 !== 'string') {
      throw new ValidationError(`testResults.${at}.testDefinitionMd5 must be a string`, `${at}.testDefinitionMd5`);
    }
    if (seen.has(e.test as string)) throw new ValidationError(`testResults lists ${e.test as string} more than once`, `${at}.test`);
    seen.add(e.test as string);
    return e as TestResult;
  });
}

export function parseTestResults(raw: unknown): TestResults {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ValidationError('testResults must be a JSON object', 'testResults');
  const obj = raw as Record<string, unknown>;
  const extra = Object.keys(obj).filter((k) => k !== 'passing' && k !== 'failing');
  if (extra.length > 0) throw new ValidationError(`Unknown field in testResults: ${extra[0]}`, extra[0]);
  const size = (Array.isArray(obj.passing) ? obj.passing.length : 0) + (Array.isArray(obj.failing) ? obj.failing.length : 0);
  if (size > MAX_TEST_RESULTS) throw new ValidationError(`testResults holds more than the limit of ${MAX_TEST_RESULTS} results`, 'testResults');
  const seen = new Set<string>();
  return { passing: parseList(obj.passing, 'passing', seen), failing: parseList(obj.failing, 'failing', seen) };
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
