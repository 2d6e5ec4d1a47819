/**
 * The backwards-compatibility check for definition updates (docs/contract.md §2). A
 * change that could make a stored value invalid (the seed's list: a value type change,
 * MULTIPLE to SINGLE, an allowed value or an entity type removed, ...) is a breaking
 * change. It is refused only when values actually stored break under it (docs/contract.md, "Definitions evolve": the
 * seed's "incompatible with stored values"): each breaking change comes with the count
 * of the entities whose current values it would break, counted under the write's lock.
 * Where some would break, the write needs a new `version` (which drops every value) or
 * a migration (domain/valueMigration.ts, which keeps them).
 */
import { IncompatibleChangeError, ValidationError } from './errors.js';
import type { PropertyDefinition } from './propertyDefinition.js';
import { sameValue, valueAsWritten, type TypedValue } from './typedValue.js';

/** A change that could make a stored value invalid, as data: the store counts the holders each would break. */
export type BreakingChange =
  | { readonly kind: 'valueType'; readonly from: string; readonly to: string }
  | { readonly kind: 'cardinality' }
  | { readonly kind: 'allowedValueRemoved'; readonly value: TypedValue }
  | { readonly kind: 'allowedValuesAdded'; readonly allowed: readonly TypedValue[] }
  | { readonly kind: 'entityTypeRemoved'; readonly entityType: string }
  | { readonly kind: 'allowedTypesRestricted'; readonly allowed: readonly string[] }
  | { readonly kind: 'allowedTypeRemoved'; readonly entityType: string; readonly allowed: readonly string[] };

/** A breaking change as a sentence. */
export function describeChange(c: BreakingChange): string {
  switch (c.kind) {
    case 'valueType':
      return `valueType changes from ${c.from} to ${c.to}`;
    case 'cardinality':
      return 'cardinality changes from MULTIPLE to SINGLE';
    case 'allowedValueRemoved':
      return `allowed value ${valueAsWritten(c.value)} is removed`;
    case 'allowedValuesAdded':
      return 'allowedValues are added where any value was allowed';
    case 'entityTypeRemoved':
      return `entity type ${c.entityType} is removed`;
    case 'allowedTypesRestricted':
      return 'typeQualifier.allowedTypes restricts urn values where any was allowed';
    case 'allowedTypeRemoved':
      return `typeQualifier allowed type ${c.entityType} is removed`;
  }
}

/** Lists the breaking changes from `stored` to `next`. */
export function breakingChangeList(stored: PropertyDefinition, next: PropertyDefinition): BreakingChange[] {
  const changes: BreakingChange[] = [];
  if (stored.valueType !== next.valueType) changes.push({ kind: 'valueType', from: stored.valueType, to: next.valueType });
  if ((stored.cardinality ?? 'SINGLE') === 'MULTIPLE' && (next.cardinality ?? 'SINGLE') === 'SINGLE') changes.push({ kind: 'cardinality' });
  const before = stored.allowedValues ?? [];
  const after = next.allowedValues ?? [];
  if (before.length === 0 && after.length > 0) changes.push({ kind: 'allowedValuesAdded', allowed: after.map((a) => a.value) });
  for (const old of before) {
    if (after.length > 0 && !after.some((a) => sameValue(a.value, old.value))) changes.push({ kind: 'allowedValueRemoved', value: old.value });
  }
  for (const t of stored.entityTypes) {
    if (!next.entityTypes.includes(t)) changes.push({ kind: 'entityTypeRemoved', entityType: t });
  }
  const oldTypes = stored.typeQualifier?.allowedTypes ?? [];
  const newTypes = next.typeQualifier?.allowedTypes ?? [];
  if (oldTypes.length === 0 && newTypes.length > 0) changes.push({ kind: 'allowedTypesRestricted', allowed: newTypes });
  for (const t of oldTypes) {
    if (newTypes.length > 0 && !newTypes.includes(t)) changes.push({ kind: 'allowedTypeRemoved', entityType: t, allowed: newTypes });
  }
  return changes;
}

/** Lists the breaking changes from `stored` to `next`, each as a sentence. */
export function breakingChanges(stored: PropertyDefinition, next: PropertyDefinition): string[] {
  return breakingChangeList(stored, next).map(describeChange);
}

/** A breaking change and how many entities hold values it would break (undefined: not counted, as for a client-side check). */
export interface CountedChange {
  readonly change: BreakingChange;
  readonly holders?: number;
}

export interface DefinitionUpdate {
  /** The definition to store: `next`, keeping the stored version when `next` names none. */
  readonly definition: PropertyDefinition;
  /** Whether this write starts a new version (older values become invisible). */
  readonly versionChanged: boolean;
  /** The breaking changes that break stored values (to be migrated, or dropped by a new version). */
  readonly breaking: readonly CountedChange[];
}

function withHolders(c: CountedChange): string {
  if (c.holders === undefined) return describeChange(c.change);
  return `${describeChange(c.change)} (${c.holders === 1 ? '1 entity holds values it breaks' : `${c.holders} entities hold values it breaks`})`;
}

/**
 * Decides whether `next` may replace `stored`, and whether it starts a new version. A
 * write without `version` keeps the stored one (a version never goes back or away).
 * `counted` are the breaking changes with their holders; a change no stored value
 * breaks is accepted. `migrating`: the write carries a migration, which must keep the
 * broken values (domain/valueMigration.ts checks that it does).
 */
export function checkCompatibility(stored: PropertyDefinition, next: PropertyDefinition, counted: readonly CountedChange[] = breakingChangeList(stored, next).map((change) => ({ change })), migrating = false): DefinitionUpdate {
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
  const breaking = counted.filter((c) => c.holders === undefined || c.holders > 0);
  if (breaking.length > 0 && !versionChanged && !migrating) {
    throw new IncompatibleChangeError(
      `Incompatible structured property definition change: ${breaking.map(withHolders).join('; ')}. ` +
        'Set a new version (yyyyMMddhhmmss) to apply a breaking change, which drops every stored value, or send a migration that keeps them.',
    );
  }
  if (versionChanged && migrating) throw new ValidationError('A write carries either a new version or a migration, not both', 'migration');
  const definition = next.version === undefined && stored.version !== undefined ? { ...next, version: stored.version } : next;
  return { definition, versionChanged, breaking };
}
