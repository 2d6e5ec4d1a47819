/**
 * Why a metadata test gave its outcome on an entity: every predicate of the test with
 * whether it held, and for each comparison the values the entity has at that path. The
 * compliance view shows a failing asset's failed rules with it. Pure, and bounded like
 * an evaluation (the caller supplies the regex matcher and the work meter).
 */
import type { RegexMatcher } from './boundedRegex.js';
import type { Predicate, TestDefinition } from './testDefinition.js';
import { evaluatePredicate, resolveProperty, type EntityDocument, type TestOutcome } from './testRules.js';
import { EvaluationBoundExceeded, UNMETERED, type Spend } from './testWork.js';

/** Values of one path shown, and characters of each. */
const SHOWN_VALUES = 20;
const SHOWN_CHARACTERS = 200;

export interface PredicateOutcome {
  readonly kind: 'and' | 'or' | 'not' | 'leaf';
  /** Whether it held; null when a bound stopped the evaluation before it ran. */
  readonly holds: boolean | null;
  /** For a comparison: its property path, operator and given values. */
  readonly property?: string;
  readonly operator?: string;
  readonly values?: readonly string[];
  /** For a comparison: what the entity has at the path (the first 20, each cut at 200 characters). */
  readonly actual?: readonly string[];
  readonly children?: readonly PredicateOutcome[];
}

export interface TestExplanation {
  readonly outcome: TestOutcome;
  /** Set when the scope's conditions were evaluated. */
  readonly conditions?: PredicateOutcome;
  /** Set when the entity was in scope. */
  readonly rules?: PredicateOutcome;
  /** Why the evaluation stopped early (a regex or the work budget ran out): such a test fails. */
  readonly boundExceeded?: string;
}

function shown(values: readonly string[]): string[] {
  return values.slice(0, SHOWN_VALUES).map((v) => (v.length > SHOWN_CHARACTERS ? `${v.slice(0, SHOWN_CHARACTERS)}…` : v));
}

function explain(p: Predicate, doc: EntityDocument, match: RegexMatcher, spend: Spend): PredicateOutcome {
  switch (p.kind) {
    case 'and':
    case 'or': {
      const children = p.children.map((c) => explain(c, doc, match, spend));
      // One child decides (false for and, true for or) even when a bound stopped another.
      const decisive = p.kind === 'or';
      const holds = children.some((c) => c.holds === decisive) ? decisive : children.some((c) => c.holds === null) ? null : !decisive;
      return { kind: p.kind, holds, children };
    }
    case 'not': {
      const child = explain(p.child, doc, match, spend);
      return { kind: 'not', holds: child.holds === null ? null : !child.holds, children: [child] };
    }
    case 'leaf': {
      const base = { kind: 'leaf' as const, property: p.property, operator: p.operator, values: p.values, actual: shown(resolveProperty(p.path, doc)) };
      try {
        return { ...base, holds: evaluatePredicate(p, doc, match, spend) };
      } catch (err) {
        if (err instanceof EvaluationBoundExceeded) return { ...base, holds: null };
        throw err;
      }
    }
  }
}

/** Explains one test on one entity; the outcome is the one evaluateTest gives. */
export function explainTest(def: TestDefinition, doc: EntityDocument, match: RegexMatcher, spend: Spend = UNMETERED): TestExplanation {
  if (!def.on.types.includes(doc.entityType)) return { outcome: 'OUT_OF_SCOPE' };
  let conditions: PredicateOutcome | undefined;
  if (def.on.conditions) {
    conditions = explain(def.on.conditions, doc, match, spend);
    if (conditions.holds === null) return { outcome: 'FAILURE', conditions, boundExceeded: 'a bound stopped the evaluation of the conditions' };
    if (!conditions.holds) return { outcome: 'OUT_OF_SCOPE', conditions };
  }
  const rules = explain(def.rules, doc, match, spend);
  const scope = conditions ? { conditions } : {};
  if (rules.holds === null) return { outcome: 'FAILURE', ...scope, rules, boundExceeded: 'a bound stopped the evaluation of the rules' };
  return { outcome: rules.holds ? 'SUCCESS' : 'FAILURE', ...scope, rules };
}

/** A comparison that made a test fail, and what it should have given. */
export interface FailedComparison extends PredicateOutcome {
  /** True: the comparison should hold and does not; false: it should not hold (under a not) and does. */
  readonly expected: boolean;
}

/**
 * The comparisons that decided a failure: those of an `and` that did not hold, every
 * one of an `or` (none held), and, under a `not`, those that held. A comparison a bound
 * stopped (holds null) counts too. Empty unless the rules failed.
 */
export function failedComparisons(explanation: TestExplanation): FailedComparison[] {
  const out: FailedComparison[] = [];
  const walk = (p: PredicateOutcome, expected: boolean): void => {
    if (p.holds === expected) return;
    if (p.kind === 'leaf') {
      out.push({ ...p, expected });
      return;
    }
    if (p.kind === 'not') {
      walk(p.children![0]!, !expected);
      return;
    }
    // An and that should hold (an or that should not) fails by its children that are off; the other two by all of them.
    const each = (p.kind === 'and') === expected;
    for (const c of p.children ?? []) if (!each || c.holds !== expected) walk(c, expected);
  };
  if (explanation.outcome === 'FAILURE' && explanation.rules) walk(explanation.rules, true);
  return out;
}
