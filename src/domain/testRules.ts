/**
 * The metadata test rule engine (docs/contract.md §7): evaluates a parsed definition over one
 * entity as readers see it. Property paths resolve to lists of strings; every
 * operator asks whether any resolved value relates to any given value, as DataHub's
 * operators do. Pure: the caller resolves the entity and supplies the regex matcher
 * and the work meter (testWork.ts); a path is resolved once per entity, however many
 * predicates name it.
 */
import { RegexBoundExceeded, type RegexMatcher } from './boundedRegex.js';
import { parseDecimal, type LeafPredicate, type Predicate, type PropertyPath, type TestDefinition } from './testDefinition.js';
import { EvaluationBoundExceeded, searchUnits, UNMETERED, type Spend } from './testWork.js';
import { valueAsString, type TypedValue } from './typedValue.js';

/** An entity with its aspects as readers see them (deleted and outdated property values already hidden). */
export interface EntityDocument {
  readonly urn: string;
  /** The entity type name, e.g. `dataset`. */
  readonly entityType: string;
  readonly aspects: ReadonlyMap<string, unknown>;
}

export type TestOutcome = 'SUCCESS' | 'FAILURE' | 'OUT_OF_SCOPE';

export interface TestEvaluation {
  readonly outcome: TestOutcome;
  /** Set when a regex or the work budget ran out: the test could not be shown to pass, so it fails. */
  readonly boundExceeded?: EvaluationBoundExceeded;
}

function scalarText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  return undefined;
}

/** Walks an aspect along field names; lists on the way are flattened, so every reachable value is collected. */
function collect(node: unknown, fields: readonly string[], i: number, out: string[], spend: Spend): void {
  if (node === null || node === undefined) return;
  if (Array.isArray(node)) {
    spend(node.length);
    for (const item of node) collect(item, fields, i, out, spend);
    return;
  }
  if (i === fields.length) {
    const text = scalarText(node);
    if (text !== undefined) out.push(text);
    return;
  }
  if (typeof node !== 'object') return;
  const field = fields[i]!;
  // Own fields only: a path must never reach the prototype (`constructor`, `__proto__`).
  if (Object.hasOwn(node, field)) collect((node as Record<string, unknown>)[field], fields, i + 1, out, spend);
}

function structuredPropertyValues(doc: EntityDocument, propertyUrn: string): string[] {
  const aspect = doc.aspects.get('structuredProperties') as { properties?: unknown } | undefined;
  const entries = Array.isArray(aspect?.properties) ? aspect.properties : [];
  const out: string[] = [];
  for (const entry of entries as Array<{ propertyUrn?: unknown; values?: unknown }>) {
    if (entry?.propertyUrn !== propertyUrn || !Array.isArray(entry.values)) continue;
    for (const v of entry.values as TypedValue[]) out.push(valueAsString(v));
  }
  return out;
}

/** The values a property path names on an entity; empty when it names nothing. */
export function resolveProperty(path: PropertyPath, doc: EntityDocument, spend: Spend = UNMETERED): string[] {
  switch (path.kind) {
    case 'urn':
      return [doc.urn];
    case 'entityType':
      return [doc.entityType];
    case 'structuredProperty':
      return structuredPropertyValues(doc, path.propertyUrn);
    case 'aspect': {
      const out: string[] = [];
      collect(doc.aspects.get(path.aspect), path.fields, 0, out, spend);
      return out;
    }
  }
}

/** Resolved paths per entity document, by the path as written: each is walked once per entity. */
const resolved = new WeakMap<EntityDocument, Map<string, readonly string[]>>();

function valuesOf(p: LeafPredicate, doc: EntityDocument, spend: Spend): readonly string[] {
  let paths = resolved.get(doc);
  if (!paths) resolved.set(doc, (paths = new Map()));
  let values = paths.get(p.property);
  if (!values) paths.set(p.property, (values = resolveProperty(p.path, doc, spend)));
  return values;
}

function numbers(values: readonly string[]): number[] {
  return values.map(parseDecimal).filter((n): n is number => n !== undefined);
}

/** What an operator costs before it runs (the work it does at most). */
function leafUnits(p: LeafPredicate, actual: readonly string[]): number {
  switch (p.operator) {
    case 'contains_str':
    case 'starts_with':
      return searchUnits(p.values.length, actual);
    case 'regex_match':
      return searchUnits(p.patterns?.length ?? 0, actual);
    case 'greater_than':
    case 'greater_than_or_equal_to':
    case 'less_than':
    case 'less_than_or_equal_to':
      return actual.length * (1 + p.values.length);
    default:
      return 1 + actual.length + p.values.length;
  }
}

function evaluateLeaf(p: LeafPredicate, doc: EntityDocument, match: RegexMatcher, spend: Spend): boolean {
  const actual = valuesOf(p, doc, spend);
  spend(leafUnits(p, actual));
  const given = p.values;
  switch (p.operator) {
    case 'equals':
    case 'contains_any': {
      const set = new Set(given);
      return actual.some((a) => set.has(a));
    }
    case 'contains_str':
      return given.some((g) => actual.some((a) => a.includes(g)));
    case 'starts_with':
      return given.some((g) => actual.some((a) => a.startsWith(g)));
    case 'regex_match':
      return (p.patterns ?? []).some((re) => match(re, actual));
    case 'greater_than': {
      const rhs = numbers(given);
      return numbers(actual).some((a) => rhs.some((g) => a > g));
    }
    case 'greater_than_or_equal_to': {
      const rhs = numbers(given);
      return numbers(actual).some((a) => rhs.some((g) => a >= g));
    }
    case 'less_than': {
      const rhs = numbers(given);
      return numbers(actual).some((a) => rhs.some((g) => a < g));
    }
    case 'less_than_or_equal_to': {
      const rhs = numbers(given);
      return numbers(actual).some((a) => rhs.some((g) => a <= g));
    }
    case 'exists':
      return actual.some((a) => a.length > 0);
    // DataHub's truthiness: some value that is neither empty nor "false" (any case).
    case 'is_true':
      return actual.some((a) => a !== '' && a.toLowerCase() !== 'false');
    case 'is_false':
      return actual.length === 0 || actual.some((a) => a.toLowerCase() === 'false') || actual.every((a) => a === '');
  }
}

/**
 * Evaluates a predicate; throws an EvaluationBoundExceeded when a regex match exceeds
 * its bound or the work meter runs out.
 */
export function evaluatePredicate(p: Predicate, doc: EntityDocument, match: RegexMatcher, spend: Spend = UNMETERED): boolean {
  switch (p.kind) {
    case 'and':
      return p.children.every((c) => evaluatePredicate(c, doc, match, spend));
    case 'or':
      return p.children.some((c) => evaluatePredicate(c, doc, match, spend));
    case 'not':
      return !evaluatePredicate(p.child, doc, match, spend);
    case 'leaf':
      return evaluateLeaf(p, doc, match, spend);
  }
}

/**
 * Runs one test on one entity: out of scope unless the entity's type is targeted and
 * the conditions hold; otherwise SUCCESS when the rules hold, else FAILURE.
 */
export function evaluateTest(def: TestDefinition, doc: EntityDocument, match: RegexMatcher, spend: Spend = UNMETERED): TestEvaluation {
  if (!def.on.types.includes(doc.entityType)) return { outcome: 'OUT_OF_SCOPE' };
  for (let attempt = 1; ; attempt++) {
    try {
      if (def.on.conditions && !evaluatePredicate(def.on.conditions, doc, match, spend)) return { outcome: 'OUT_OF_SCOPE' };
      return { outcome: evaluatePredicate(def.rules, doc, match, spend) ? 'SUCCESS' : 'FAILURE' };
    } catch (err) {
      // A match that ran out of its time once may have been paused (garbage collection, a
      // busy machine): it gets one more try, within the same budgets, before the test fails.
      if (err instanceof RegexBoundExceeded && err.timedOut && attempt === 1) continue;
      if (err instanceof EvaluationBoundExceeded) return { outcome: 'FAILURE', boundExceeded: err };
      throw err;
    }
  }
}

/** A test ready to run: its URN and parsed definition. */
export interface RunnableDefinition {
  readonly urn: string;
  readonly definition: TestDefinition;
}

export interface TestRun {
  /** The URNs of the tests that passed and of those that failed; tests out of scope are in neither. */
  readonly passing: string[];
  readonly failing: string[];
  /** The tests that failed because a regex or the work budget ran out. */
  readonly exceeded: Array<{ readonly test: string; readonly bound: EvaluationBoundExceeded }>;
}

/** Runs tests on one entity, each with its own work meter from `budget`. */
export function runTests(tests: readonly RunnableDefinition[], doc: EntityDocument, match: RegexMatcher, budget: { evaluation(): Spend }): TestRun {
  const run: TestRun = { passing: [], failing: [], exceeded: [] };
  for (const test of tests) {
    const { outcome, boundExceeded } = evaluateTest(test.definition, doc, match, budget.evaluation());
    if (boundExceeded) run.exceeded.push({ test: test.urn, bound: boundExceeded });
    if (outcome === 'SUCCESS') run.passing.push(test.urn);
    else if (outcome === 'FAILURE') run.failing.push(test.urn);
  }
  return run;
}
