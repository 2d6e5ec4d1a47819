/**
 * A work budget for metadata test evaluation (docs/contract.md §7). A rule's cost depends on the
 * entity as much as on the test: 500 `contains_str` predicates over a dataset with
 * 20,000 fields are 10^8 string searches. Every operator, not only regex, spends work
 * units before it runs (about one per value compared, plus one per 64 characters
 * searched, and one per node walked to resolve a path), against a budget per test and
 * entity and one per request. A test that runs out could not be shown to pass, so it
 * fails, as one whose regex exceeds its time bound does.
 */
import { TEST_LIMITS } from './testLimits.js';

/** Base of the bounds a metadata test evaluation may exceed (regex time, work units). */
export class EvaluationBoundExceeded extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'EvaluationBoundExceeded';
  }
}

export class WorkBudgetExceeded extends EvaluationBoundExceeded {
  constructor(reason: string) {
    super(reason);
    this.name = 'WorkBudgetExceeded';
  }
}

/** Spends work units; throws WorkBudgetExceeded once a budget is spent, before the work is done. */
export type Spend = (units: number) => void;

export const UNMETERED: Spend = () => undefined;

export interface WorkBounds {
  readonly perEvaluation: number;
  readonly perRequest: number;
}

const DEFAULT_BOUNDS: WorkBounds = { perEvaluation: TEST_LIMITS.workPerEvaluation, perRequest: TEST_LIMITS.workPerRequest };

/** One request's budget: `evaluation()` gives the meter for one test on one entity. */
export function createWorkBudget(bounds: Partial<WorkBounds> = {}): { evaluation(): Spend; readonly spent: () => number } {
  const { perEvaluation, perRequest } = { ...DEFAULT_BOUNDS, ...bounds };
  let requestSpent = 0;
  return {
    spent: () => requestSpent,
    evaluation: () => {
      let spent = 0;
      return (units) => {
        if (requestSpent + units > perRequest) throw new WorkBudgetExceeded(`not run: the request's work budget of ${perRequest} units is spent`);
        if (spent + units > perEvaluation) throw new WorkBudgetExceeded(`needs more than the work budget of ${perEvaluation} units for one test on one entity`);
        spent += units;
        requestSpent += units;
      };
    },
  };
}

/** The units of searching `given` values in each of `actual` (characters count in 64s). */
export function searchUnits(given: number, actual: readonly string[]): number {
  let chars = 0;
  for (const a of actual) chars += a.length;
  return given * (actual.length + Math.ceil(chars / 64));
}
