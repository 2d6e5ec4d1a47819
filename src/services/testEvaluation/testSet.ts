/**
 * A set of metadata tests to run together, with what running them needs to know per
 * entity type: which tests target it and which aspects they read of it (what the
 * write path loads for an evaluation).
 */
import { ASPECT } from '../../domain/aspects/index.js';
import { isKnownAspect, type EntityTypeInfo } from '../../domain/registry/entityTypes.js';
import { aspectsRead, propertiesRead } from '../../domain/testDefinition.js';
import type { RunnableDefinition } from '../../domain/testRules.js';

export class TestSet {
  private readonly reads = new Map<string, string[]>();

  constructor(readonly tests: readonly RunnableDefinition[]) {}

  get urns(): string[] {
    return this.tests.map((t) => t.urn);
  }

  /** Whether entities of the type can hold results at all. */
  static holdsResults(type: EntityTypeInfo): boolean {
    return isKnownAspect(type, ASPECT.testResults);
  }

  /** Whether some test targets entities of the type. */
  targets(type: EntityTypeInfo): boolean {
    return this.tests.some((t) => t.definition.on.types.includes(type.name));
  }

  /** The entity types the tests target. */
  targetedTypes(): string[] {
    return [...new Set(this.tests.flatMap((t) => t.definition.on.types))].sort();
  }

  /** The aspects the tests targeting `type` read of its entities. */
  readsOf(type: EntityTypeInfo): string[] {
    let names = this.reads.get(type.name);
    if (!names) {
      const all = new Set(this.tests.filter((t) => t.definition.on.types.includes(type.name)).flatMap((t) => aspectsRead(t.definition)));
      names = [...all].filter((a) => isKnownAspect(type, a)).sort();
      this.reads.set(type.name, names);
    }
    return names;
  }

  /** The tests that name one of these structured properties. */
  naming(propertyUrns: ReadonlySet<string>): string[] {
    return this.tests.filter((t) => propertiesRead(t.definition).some((p) => propertyUrns.has(p))).map((t) => t.urn);
  }
}
