/**
 * The backwards-compatibility check for definition updates (docs/contract.md §2). A breaking change
 * is allowed only together with a `version` strictly greater than the stored one.
 */
import { IncompatibleChangeError, ValidationError } from './errors.js';
import type { PropertyDefinition } from './propertyDefinition.js';
import { sameValue, valueAsWritten } from './typedValue.js';

/** Lists the breaking changes from `stored` to `next`, each as a sentence. */
export function breakingChanges(stored: PropertyDefinition, next: PropertyDefinition): string[] {
  const changes: string[] = [];
  if (stored.valueType !== next.valueType) changes.push(`valueType changes from ${stored.valueType} to ${next.valueType}`);
  if ((stored.cardinality ?? 'SINGLE') === 'MULTIPLE' && (next.cardinality ?? 'SINGLE') === 'SINGLE') {
    changes.push('cardinality changes from MULTIPLE to SINGLE');
  }
  const before = stored.allowedValues ?? [];
  const after = next.allowedValues ?? [];
  if (before.length === 0 && after.length > 0) changes.push('allowedValues are added where any value was allowed');
  for (const old of before) {
    if (after.length > 0 && !after.some((a) => sameValue(a.value, old.value))) {
      changes.push(`allowed value ${valueAsWritten(old.value)} is removed`);
    }
  }
  for (const t of stored.entityTypes) {
    if (!next.entityTypes.includes(t)) changes.push(`entity type ${t} is removed`);
  }
  const oldTypes = stored.typeQualifier?.allowedTypes ?? [];
  const newTypes = next.typeQualifier?.allowedTypes ?? [];
  if (oldTypes.length === 0 && newTypes.length > 0) changes.push('typeQualifier.allowedTypes restricts urn values where any was allowed');
  for (const t of oldTypes) {
    if (newTypes.length > 0 && !newTypes.includes(t)) changes.push(`typeQualifier allowed type ${t} is removed`);
  }
  return changes;
}

export interface DefinitionUpdate {
  /** The definition to store: `next`, keeping the stored version when `next` names none. */
  readonly definition: PropertyDefinition;
  /** Whether this write starts a new version (older values become invisible). */
  readonly versionChanged: boolean;
}

/**
 * Decides whether `next` may replace `stored`, and whether it starts a new version.
 * A write without `version` keeps the stored one (a version never goes back or away).
 */
export function checkCompatibility(stored: PropertyDefinition, next: PropertyDefinition): DefinitionUpdate {
  if (stored.qualifiedName !== next.qualifiedName) {
    throw new ValidationError('qualifiedName of a structured property cannot change', 'qualifiedName');
  }
  const versionChanged = next.version !== undefined && next.version !== stored.version;
  if (versionChanged && stored.version !== undefined && next.version! < stored.version) {
    throw new ValidationError(
      `version ${next.version} must be greater than the current version ${stored.version}`,
      'version',
    );
  }
  const changes = breakingChanges(stored, next);
  if (changes.length > 0 && !versionChanged) {
    throw new IncompatibleChangeError(
      `Incompatible structured property definition change: ${changes.join('; ')}. ` +
        'Set a new version (yyyyMMddhhmmss) to apply a breaking change.',
    );
  }
  const definition = next.version === undefined && stored.version !== undefined ? { ...next, version: stored.version } : next;
  return { definition, versionChanged };
}
