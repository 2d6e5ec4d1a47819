/**
 * What a write decided, as data: the store applies it in one statement (guarded, or
 * inside the locked transaction) and the caller answers from it.
 */
import type { ActiveMigration } from '../valueMigration.js';

/** A property value row of an entity: the values of one property, under one generation. */
export interface ValueRow {
  readonly propertyUrn: string;
  readonly generation: bigint;
  readonly values: unknown;
}

/** The registry row of a property a definition write (re)defines. */
export interface RegistryDefinition {
  readonly qualifiedName: string;
  readonly searchField: string;
  readonly valueType: string;
  readonly version: string | null;
  /** `new`: draw a new generation, which hides every value written under older ones (but those a migration reads through). */
  readonly generation: bigint | 'new';
  /** `new`: a new lineage (a new property, a re-created one, a breaking version): history shows values written since. */
  readonly lineage: 'new' | 'keep';
  /** The migration the new generation reads older values through; null: none. */
  readonly migration: ActiveMigration | null;
}

/** A change to one property's registry row. */
export interface RegistryChange {
  readonly urn: string;
  readonly define: RegistryDefinition | null;
  /** The soft-delete flag to set; null leaves it (a new row starts live). */
  readonly removed: boolean | null;
}

export interface JobRequest {
  readonly kind: string;
  readonly payload: Record<string, unknown>;
}

/**
 * Something that happened to a property or a metadata test as a whole (created,
 * changed, a new version, a migration, soft deleted, restored, hard deleted), kept in
 * its history with who and when. Its detail never holds values (hard means gone).
 */
export interface LifecycleNote {
  readonly event: 'created' | 'changed' | 'versionChanged' | 'migrationStarted' | 'migrationFinished' | 'softDeleted' | 'restored' | 'hardDeleted';
  readonly detail?: Readonly<Record<string, string | number | boolean | null>>;
}

/** What one aspect's rules decided about a new value. */
export interface AspectDecision {
  /** The aspect as it will be stored. */
  readonly stored: unknown;
  /** What readers see of it. */
  readonly visible: unknown;
  /**
   * `never`: derived, nothing to store (key aspects); `if-changed`: store unless equal to
   * the stored aspect; `always`: store even then, because its meaning changed (values
   * re-asserted under a new definition generation).
   */
  readonly store: 'never' | 'if-changed' | 'always';
  /** Replaces the entity's value rows; null leaves them. */
  readonly valueRows: readonly ValueRow[] | null;
  readonly registry: RegistryChange | null;
  readonly jobs: readonly JobRequest[];
  /** Properties whose registry records the decision relied on. */
  readonly reliesOn: readonly string[];
  /** Lifecycle events, kept when the aspect is written. */
  readonly events: readonly LifecycleNote[];
  /** What the decision found that the caller is told beside the value (a migration's effect); absent: nothing. */
  readonly report?: Readonly<Record<string, unknown>>;
}

export interface AspectResult {
  readonly aspect: string;
  readonly value: unknown;
  readonly systemMetadata: Record<string, unknown> | null;
}

/** An aspect row to store as the new latest version. */
export interface AspectRow {
  readonly aspect: string;
  readonly metadata: unknown;
  readonly systemMetadata: Record<string, unknown>;
  /** What the version it replaces is kept as in history; absent: as it is stored. */
  readonly previousKeptAs?: unknown;
}

/** Everything a write does to one entity. */
export interface EntityWriteDecision {
  readonly urn: string;
  readonly entityType: string;
  /** Who writes: stored with each aspect version. */
  readonly createdBy: string;
  /** The interface the write came through (rest-v3, graphql, cli, ...): stored with each aspect version; null when unknown. */
  readonly createdVia?: string | null;
  /** Set when the write creates the entity: its key aspect goes to the change log too. */
  readonly creates: { readonly keyAspect: string } | null;
  readonly writes: readonly AspectRow[];
  /** Replaces the entity's value rows; null leaves them. */
  readonly valueRows: readonly ValueRow[] | null;
  readonly registry: readonly RegistryChange[];
  readonly jobs: readonly JobRequest[];
  /** Properties whose registry records the decision relied on: refused if any changed meanwhile. */
  readonly reliesOn: readonly string[];
  /** Lifecycle events of the entity (kept only for types whose lifecycle the registry tracks). */
  readonly events: readonly LifecycleNote[];
  /** Per request, what the caller is answered. */
  readonly results: readonly AspectResult[];
  /** What the decisions found that the caller is told (a migration's effect), by aspect. */
  readonly reports: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** Whether applying the decision changes anything (else there is nothing to store). */
export function changesSomething(d: EntityWriteDecision): boolean {
  return d.creates !== null || d.writes.length > 0 || d.valueRows !== null || d.events.length > 0;
}
