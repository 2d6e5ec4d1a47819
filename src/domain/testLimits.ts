/**
 * Bounds on metadata test definitions and on their evaluation (docs/contract.md §7). Regular
 * expressions are the one part of a rule whose cost depends on the pattern, so they
 * carry both a size cap and a time cap (boundedRegex.ts); every operator's cost also
 * depends on the entity, so evaluation spends from a work budget (testWork.ts).
 */
export const TEST_LIMITS = {
  /** Characters of a definition's JSON text. */
  definitionLength: 100_000,
  /** Nesting of and/or/not. */
  predicateDepth: 32,
  /** Predicates (logical and leaf) in one definition. */
  predicates: 1000,
  /** Values of one leaf predicate. */
  valuesPerPredicate: 1000,
  /** Entity types a test may target. */
  types: 100,
  regexPatternLength: 1000,
  /** Longer inputs are not matched at all (the match counts as exceeding its bound). */
  regexInputLength: 100_000,
  /** Wall-clock bound on matching one pattern against the values of one property. */
  regexMatchTimeoutMs: 100,
  /** Wall-clock bound on all regex matching of one evaluate or batchEvaluate request. */
  regexRequestBudgetMs: 1000,
  /** Entities in one batchEvaluate request. */
  batchEntities: 100,
  /** Work units (testWork.ts) one test may spend on one entity: some milliseconds. */
  workPerEvaluation: 500_000,
  /** Work units one evaluate or batchEvaluate request may spend in all. */
  workPerRequest: 10_000_000,
} as const;
