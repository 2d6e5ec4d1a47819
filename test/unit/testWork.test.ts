/**
 * docs/contract.md §7, issue #14: every operator spends from a work budget before it runs; a test
 * that runs out fails (it could not be shown to pass), and a request's budget caps the
 * work of all its tests on all its entities.
 */
import { createBoundedMatcher } from '../../src/domain/boundedRegex.js';
import { parseTestDefinition } from '../../src/domain/testDefinition.js';
import { evaluateTest, type EntityDocument } from '../../src/domain/testRules.js';
import { createWorkBudget, searchUnits, WorkBudgetExceeded } from '../../src/domain/testWork.js';

const match = createBoundedMatcher();

function wide(fields: number): EntityDocument {
  return {
    urn: `urn:li:dataset:(urn:li:dataPlatform:hive,wide${fields},PROD)`,
    entityType: 'dataset',
    aspects: new Map([['schemaMetadata', { fields: Array.from({ length: fields }, (_, i) => ({ fieldPath: `column_${i}` })) }]]),
  };
}

const test_ = (rules: unknown) => parseTestDefinition({ on: { types: ['dataset'] }, rules });
const search = (operator: string, values: string[]) => ({ property: 'schemaMetadata.fields.fieldPath', operator, values });

test('searching counts one unit per value compared plus one per 64 characters, per given value', () => {
  expect(searchUnits(2, ['a'.repeat(64), 'b'])).toBe(2 * (2 + 2));
  expect(searchUnits(0, ['a'])).toBe(0);
});

test('a test within its budget is evaluated as without one', () => {
  const budget = createWorkBudget({ perEvaluation: 100_000 });
  expect(evaluateTest(test_([search('contains_str', ['column_99'])]), wide(100), match, budget.evaluation()).outcome).toBe('SUCCESS');
  expect(budget.spent()).toBeGreaterThan(0);
});

test.each(['contains_str', 'starts_with', 'equals', 'contains_any', 'regex_match', 'greater_than', 'less_than', 'exists', 'is_true', 'is_false'])(
  '%s over more values than the budget covers fails the test with the budget named',
  (operator) => {
    const budget = createWorkBudget({ perEvaluation: 1000 });
    const values = operator === 'exists' || operator.startsWith('is_') ? undefined : operator.endsWith('_than') ? ['1'] : ['x'];
    const rule = values ? search(operator, values) : { property: 'schemaMetadata.fields.fieldPath', operator };
    const result = evaluateTest(test_({ not: rule }), wide(5000), match, budget.evaluation());
    expect(result.outcome).toBe('FAILURE');
    expect(result.boundExceeded).toBeInstanceOf(WorkBudgetExceeded);
    expect(result.boundExceeded?.reason).toBe('needs more than the work budget of 1000 units for one test on one entity');
  },
);

test('many predicates on one wide path stop at the budget instead of running them all', () => {
  const budget = createWorkBudget({ perEvaluation: 500_000 });
  const rules = { or: Array.from({ length: 500 }, (_, i) => search('contains_str', Array.from({ length: 12 }, (_, j) => `q${i}_${j}`))) };
  const started = performance.now();
  const result = evaluateTest(test_(rules), wide(20_000), match, budget.evaluation());
  expect(result.outcome).toBe('FAILURE');
  expect(result.boundExceeded?.reason).toMatch(/work budget of 500000 units/);
  // Unbounded, this is 120 million string searches.
  expect(budget.spent()).toBeLessThanOrEqual(500_000);
  expect(performance.now() - started).toBeLessThan(2000);
});

test("once the request's budget is spent, further tests fail without running", () => {
  const budget = createWorkBudget({ perEvaluation: 50_000, perRequest: 60_000 });
  const rules = [search('contains_str', ['nothing'])];
  expect(evaluateTest(test_(rules), wide(20_000), match, budget.evaluation()).outcome).toBe('FAILURE');
  expect(evaluateTest(test_(rules), wide(20_000), match, budget.evaluation()).boundExceeded?.reason).toBe("not run: the request's work budget of 60000 units is spent");
  // A test out of scope does no work and is still out of scope.
  expect(evaluateTest(parseTestDefinition({ on: { types: ['chart'] }, rules: [{ property: 'urn', operator: 'exists' }] }), wide(10), match, budget.evaluation()).outcome).toBe('OUT_OF_SCOPE');
});

test('a path named by many predicates is resolved once per entity', () => {
  const doc = wide(1000);
  const budget = createWorkBudget();
  const one = createWorkBudget();
  evaluateTest(test_([{ property: 'schemaMetadata.fields.fieldPath', operator: 'exists' }]), doc, match, one.evaluation());
  evaluateTest(test_(Array.from({ length: 20 }, () => ({ property: 'schemaMetadata.fields.fieldPath', operator: 'exists' }))), wide(1000), match, budget.evaluation());
  // 20 predicates: the walk once (about 1000 units), then 20 scans of the values.
  expect(budget.spent()).toBeLessThan(one.spent() + 20 * 1002 + 10);
});
