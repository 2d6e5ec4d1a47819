/**
 * What a write relies on, as plain data: the state one query loads (store/writeLoad.ts)
 * and the write rules (decide functions in this folder) read. Nothing here does I/O.
 */
import type { PropertyDefinition } from '../propertyDefinition.js';
import type { TypedValue } from '../typedValue.js';
import type { ActiveMigration } from '../valueMigration.js';

/** The latest version of a stored aspect. */
export interface CurrentAspect {
  readonly metadata: unknown;
  readonly systemMetadata: Record<string, unknown> | null;
}

/** One of an entity's property value rows, with the state of its property. */
export interface HeldValue {
  readonly propertyUrn: string;
  /** The definition generation the values were written under. */
  readonly generation: bigint;
  readonly values: readonly TypedValue[];
  /** The property's current generation; null when the property no longer exists. */
  readonly currentGeneration: bigint | null;
  readonly removed: boolean;
  /** The property's migration in progress, when there is one: values under its fromGeneration are read through it. */
  readonly migration?: ActiveMigration | null;
}

/** A live structured property as the registry holds it, with its stored definition. */
export interface PropertyRecord {
  readonly urn: string;
  readonly generation: bigint;
  readonly removed: boolean;
  readonly definition: PropertyDefinition;
  /** The property entity's write counter: a write decided on this record is refused if it moved. */
  readonly entityVersion: bigint;
  /** Its migration in progress; null when none. */
  readonly migration: ActiveMigration | null;
}

/**
 * Whether the entity exists: `existed`; `created` when it did not and the write makes
 * it (already made, under lock, on the locked path); `missing` when it does not and
 * the write may not make it.
 */
export type Existence = 'existed' | 'created' | 'missing';

/** One entity as a write found it. */
export interface EntityState {
  readonly existence: Existence;
  /** The entity's write counter; null when it does not exist yet. */
  readonly version: bigint | null;
  /** The entity's parent (a schema field's dataset) when it has one, and whether that exists. */
  readonly parent: { readonly urn: string; readonly exists: boolean } | null;
  /** The latest versions of the aspects the write named or needs. */
  readonly aspects: ReadonlyMap<string, CurrentAspect>;
  /** The entity's value rows (when a rule needs them, else empty). */
  readonly values: readonly HeldValue[];
}

/** Facts outside the entities written, shared by a whole batch. */
export interface RegistryState {
  /** Registry records of the properties asked for and of those the entities hold; absent: no such live property. */
  readonly properties: ReadonlyMap<string, PropertyRecord>;
  /** Search field name → the property holding it, for the names asked for. */
  readonly searchFieldOwners: ReadonlyMap<string, string>;
}

/** The revision number of a stored aspect (its systemMetadata.version); 0 when absent. */
export function revisionOf(aspect: CurrentAspect | undefined): number {
  if (!aspect) return 0;
  return Number(aspect.systemMetadata?.version ?? 1) || 1;
}
