/**
 * Types a dataset file's values by their properties' definitions (docs/contract.md §3: the
 * definition decides, never the value's shape) and checks them with the same rules
 * the server applies, so that a file with a bad value fails before any write.
 */
import { ServiceError } from '../../domain/errors.js';
import { effectiveDefinition, type PropertyDefinition } from '../../domain/propertyDefinition.js';
import { validateAssignment, type DefinitionState, type StructuredPropertiesAspect } from '../../domain/structuredProperties.js';
import type { Assignment } from './datasetFile.js';
import type { EntryRef, FileProblems } from './fileProblems.js';

export interface KnownProperty {
  readonly definition: PropertyDefinition;
  readonly removed: boolean;
}

/** The definitions a file names; undefined for a property that does not exist. */
export type KnownProperties = ReadonlyMap<string, KnownProperty | undefined>;

/**
 * The `structuredProperties` aspect for one entity, or undefined after reporting
 * each assignment that breaks a rule.
 */
export function typedAspect(
  assignments: readonly Assignment[],
  targetType: string,
  known: KnownProperties,
  problems: FileProblems,
  entry: EntryRef,
): StructuredPropertiesAspect | undefined {
  const states = new Map<string, DefinitionState>();
  for (const [urn, property] of known) {
    if (property) states.set(urn, { definition: effectiveDefinition(urn, property.definition), removed: property.removed });
  }
  const context = { targetType, definitions: states, current: new Map() };
  const before = problems.count;
  const properties = assignments.map((a) => {
    const state = states.get(a.propertyUrn);
    if (!state) {
      problems.add(a.line, entry, a.field, `structured property ${a.propertyUrn} does not exist; create it first with \`propgraph properties upsert\``);
      return undefined;
    }
    try {
      // The text as written; the definition's type decides what it is (a number property parses it).
      return { propertyUrn: a.propertyUrn, values: validateAssignment(a.propertyUrn, a.values.map((text) => ({ string: text })), context) };
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      problems.add(a.line, entry, a.field, err.message);
      return undefined;
    }
  });
  if (problems.count > before) return undefined;
  return { properties: properties.filter((p) => p !== undefined) };
}
