/**
 * Regular expression matching with a time bound. JavaScript regexes backtrack, so a
 * pattern such as `^(a+)+$` against `aaaa…a!` takes exponential time, and a metadata
 * test is user input. A match whose worst case the pattern itself bounds to a few
 * milliseconds on the inputs at hand (regexCost.ts) runs directly; any other runs
 * inside a `node:vm` script with a timeout: V8 interrupts a running regex when the
 * timeout fires, so the event loop is blocked for at most the per-match bound. A
 * per-request budget caps the sum over all matches of one request. A match that
 * exceeds either bound throws RegexBoundExceeded.
 *
 * This is computation only (no I/O), which is why it lives beside the rule engine.
 */
import vm from 'node:vm';
import { regexShape, worstCaseSteps } from './regexCost.js';
import { TEST_LIMITS } from './testLimits.js';
import { EvaluationBoundExceeded } from './testWork.js';

export class RegexBoundExceeded extends EvaluationBoundExceeded {
  constructor(
    readonly pattern: string,
    reason: string,
    /** The match ran out of its own time (rather than not running at all). */
    readonly timedOut = false,
  ) {
    super(reason);
    this.message = `regex ${pattern} ${reason}`;
    this.name = 'RegexBoundExceeded';
  }
}

/** Whether a compiled pattern matches any of the inputs; throws RegexBoundExceeded. */
export type RegexMatcher = (re: RegExp, inputs: readonly string[]) => boolean;

export interface RegexBounds {
  readonly matchTimeoutMs: number;
  readonly budgetMs: number;
  readonly maxInputLength: number;
}

const DEFAULT_BOUNDS: RegexBounds = {
  matchTimeoutMs: TEST_LIMITS.regexMatchTimeoutMs,
  budgetMs: TEST_LIMITS.regexRequestBudgetMs,
  maxInputLength: TEST_LIMITS.regexInputLength,
};

/** Backtracking steps a match may take at most to run without a watchdog: a few milliseconds' worth. */
const NATIVE_STEPS = 1_000_000;

// One context and one compiled script for the whole process: matches are synchronous,
// so the two globals below are never shared between concurrent matches. All inputs of
// one call run in one script, because starting a script's watchdog costs far more
// than a typical match (a schema may have thousands of field paths).
const sandbox = vm.createContext(Object.create(null) as object) as { re?: RegExp; inputs?: readonly string[] };
const matchScript = new vm.Script('(() => { for (let i = 0; i < inputs.length; i++) if (re.test(inputs[i])) return true; return false; })()');

function isTimeout(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
}

/**
 * A matcher with its own budget: create one per request. Once the budget is spent,
 * every further match throws without running.
 */
export function createBoundedMatcher(bounds: Partial<RegexBounds> = {}): RegexMatcher {
  const { matchTimeoutMs, budgetMs, maxInputLength } = { ...DEFAULT_BOUNDS, ...bounds };
  let spentMs = 0;
  return (re, inputs) => {
    if (inputs.length === 0) return false;
    if (inputs.some((s) => s.length > maxInputLength)) throw new RegexBoundExceeded(re.source, `not run on an input longer than ${maxInputLength} characters`);
    const remaining = budgetMs - spentMs;
    if (remaining <= 0) throw new RegexBoundExceeded(re.source, `not run: the request's regex time budget of ${budgetMs} ms is spent`);
    const shape = regexShape(re);
    if (shape && inputs.every((s) => worstCaseSteps(shape, s.length) <= NATIVE_STEPS)) {
      // Known to be fast whatever the input: no watchdog needed (regexCost.ts).
      const started = performance.now();
      try {
        return inputs.some((s) => re.test(s));
      } finally {
        spentMs += performance.now() - started;
      }
    }
    const timeout = Math.max(1, Math.min(matchTimeoutMs, Math.ceil(remaining)));
    const started = performance.now();
    let timedOut = false;
    sandbox.re = re;
    sandbox.inputs = inputs;
    try {
      return matchScript.runInContext(sandbox, { timeout }) === true;
    } catch (err) {
      if (!isTimeout(err)) throw err;
      timedOut = true;
      throw new RegexBoundExceeded(re.source, `timed out after ${timeout} ms`, true);
    } finally {
      sandbox.re = undefined;
      sandbox.inputs = undefined;
      const elapsed = performance.now() - started;
      // The watchdog's clock and ours differ slightly; a timed-out match always costs at least its bound.
      spentMs += timedOut ? Math.max(elapsed, timeout) : elapsed;
    }
  };
}
