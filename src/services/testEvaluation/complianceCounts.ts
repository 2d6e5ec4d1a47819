/**
 * A test's compliance counts, from the relational index of results (store/testResults.ts):
 * entities passing, failing, and not applicable, the entities of the types it targets
 * that are in neither list (out of its scope, or not evaluated yet).
 */
import type { RunnableDefinition } from '../../domain/testRules.js';
import type { Queryable } from '../../store/database.js';
import { countEntitiesByType, countResults } from '../../store/testResults.js';

export interface ComplianceCounts {
  readonly testUrn: string;
  readonly passing: number;
  readonly failing: number;
  readonly notApplicable: number;
  /** Entities of the types the test targets. */
  readonly targeted: number;
}

export async function complianceCounts(db: Queryable, tests: readonly RunnableDefinition[]): Promise<ComplianceCounts[]> {
  const [results, byType] = await Promise.all([
    countResults(db, tests.map((t) => t.urn)),
    countEntitiesByType(db, [...new Set(tests.flatMap((t) => t.definition.on.types))]),
  ]);
  return tests.map((t) => {
    const { passing, failing } = results.get(t.urn) ?? { passing: 0, failing: 0 };
    const targeted = t.definition.on.types.reduce((sum, type) => sum + (byType.get(type) ?? 0), 0);
    return { testUrn: t.urn, passing, failing, notApplicable: Math.max(0, targeted - passing - failing), targeted };
  });
}
