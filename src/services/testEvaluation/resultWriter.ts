/**
 * Metadata-test results written through the one write path (aspects/pipeline.ts). Each
 * entity's results are computed inside its write, from the aspects its tests read as
 * the write loads them: the guarded statement then stores results of exactly the state
 * it relies on, and a write that lost a race with another is decided again from the new
 * state. So any number of evaluators (the change-log consumer, jobs on other replicas,
 * an evaluate with push) can write results side by side, and none leaves results of an
 * older state behind.
 *
 * A write happens only when an outcome changes (resultsToStore); an unchanged entity
 * costs its share of one load.
 */
import { ASPECT } from '../../domain/aspects/index.js';
import { createBoundedMatcher, RegexBoundExceeded } from '../../domain/boundedRegex.js';
import { resultsToStore, type ResultStamp, type TestResults } from '../../domain/testResults.js';
import { runTests, type EntityDocument, type TestRun } from '../../domain/testRules.js';
import { createWorkBudget } from '../../domain/testWork.js';
import type { Urn } from '../../domain/urn.js';
import type { EntityReading } from '../../domain/writes/entityWrite.js';
import type { Logger } from '../../platform/logger.js';
import { countTestEvaluation, type TestEvaluationTrigger } from '../../telemetry/metrics.js';
import { NO_CHANGE } from '../../domain/writes/entityWrite.js';
import type { ComputeChange, EntityPlan } from '../../domain/writes/plan.js';
import type { WriteService } from '../writes/writeService.js';
import { TestSet } from './testSet.js';

/** Results are stored through the one write entry point, as every aspect is. */
export type ResultPath = WriteService;

/** What one evaluation replaces: the results of every test ('all'), or of the tests named. */
export type Evaluated = ReadonlySet<string> | 'all';

/** Bounds on the rules of one evaluation: a regex time budget and a work budget. */
export interface EvaluationBounds {
  readonly match: ReturnType<typeof createBoundedMatcher>;
  readonly work: { evaluation(): ReturnType<ReturnType<typeof createWorkBudget>['evaluation']> };
}

/** Fresh bounds for one entity of a background run (a request shares one set across its entities instead). */
export function entityBounds(): EvaluationBounds {
  return { match: createBoundedMatcher(), work: createWorkBudget() };
}

/**
 * The change of one entity's results, or null when its type holds none.
 * `onRun` sees each evaluation (the last one counts: a write decided again runs again).
 */
export function resultsChange(
  urn: Urn,
  tests: TestSet,
  evaluated: Evaluated,
  stamp: ResultStamp,
  bounds: () => EvaluationBounds,
  onRun: (run: TestRun) => void,
): ComputeChange | null {
  if (!TestSet.holdsResults(urn.entityType)) return null;
  const applicable = tests.targets(urn.entityType) ? tests.tests : [];
  return {
    op: 'compute',
    aspect: ASPECT.testResults,
    reads: tests.readsOf(urn.entityType),
    compute: (current: unknown, entity: EntityReading) => {
      const doc: EntityDocument = { urn: urn.value, entityType: urn.entityType.name, aspects: entity.aspects };
      const b = bounds();
      const run = runTests(applicable, doc, b.match, b.work);
      onRun(run);
      return resultsToStore(current as TestResults | undefined, run, evaluated, stamp) ?? NO_CHANGE;
    },
  };
}

export interface StoredEvaluation {
  /** Entities whose results changed. */
  readonly written: number;
  /** The last change logged (0 when none; the indexer takes them from there). */
  readonly lastChange: bigint;
}

/**
 * Evaluates `tests` on the entities and stores what changed, as `actor`, in one batch
 * through the write path; entities deleted meanwhile are left out.
 */
export async function storeEvaluations(
  path: ResultPath,
  log: Logger,
  urns: readonly Urn[],
  tests: TestSet,
  evaluated: Evaluated,
  actor: string,
  trigger: TestEvaluationTrigger,
): Promise<StoredEvaluation> {
  const stamp = { time: Date.now(), actor };
  const entities: EntityPlan[] = [];
  const runs = new Map<string, TestRun>();
  for (const urn of urns) {
    const change = resultsChange(urn, tests, evaluated, stamp, entityBounds, (run) => runs.set(urn.value, run));
    if (change) entities.push({ urn, changes: [change] });
  }
  if (entities.length === 0) return { written: 0, lastChange: 0n };
  // The evaluator's own work (or a run someone with the right asked for): entities deleted meanwhile are left out.
  const { result, receipt } = await path.submit({ actor, scope: 'admin', via: 'system' }, { entities }, { atomic: false, skipMissing: true, async: true });
  // The last run of each entity is the one its write stored (a write decided again runs again).
  logExceeded(log, runs);
  for (const run of runs.values()) countRun(run, tests.tests.length, trigger);
  return { written: result.entities.filter((e) => e.status === 'written').length, lastChange: receipt.lastChange };
}

/** Counts a run's outcomes in the metrics (the tests out of scope too). */
export function countRun(run: TestRun, tests: number, trigger: TestEvaluationTrigger): void {
  countTestEvaluation('pass', trigger, run.passing.length);
  countTestEvaluation('fail', trigger, run.failing.length);
  countTestEvaluation('out_of_scope', trigger, tests - run.passing.length - run.failing.length);
}

/**
 * Tests that ran out of a bound fail; the server says which and why, in one line for a
 * whole batch or request however many entities and tests it holds (a batch must not
 * flood the log), naming the first few.
 */
export function logExceeded(log: Logger, runs: Iterable<readonly [string, TestRun]>): void {
  const exceeded: Array<{ test: string; urn: string; reason: string; pattern?: string }> = [];
  for (const [urn, run] of runs) {
    for (const { test, bound } of run.exceeded) exceeded.push({ test, urn, reason: bound.reason, ...(bound instanceof RegexBoundExceeded ? { pattern: bound.pattern } : {}) });
  }
  if (exceeded.length > 0) log.warn({ exceeded: exceeded.length, first: exceeded.slice(0, 5) }, 'metadata tests failed: they exceeded their bounds');
}
