/**
 * Bounds on metadata test definitions and on their evaluation (SPEC 7). Regular
 * expressions are the one part of a rule whose cost depends on the pattern, so they
 * carry both a size cap and a time cap; see boundedRegex.ts.
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
} as const;
