/**
 * The rules of one kind of aspect, as the write path uses them: which state a write
 * relies on (declared as data, so one query can load it for a whole batch), what
 * readers see of a stored value, and the decision about a new value. All pure.
 */
import type { UndefinedPropertyValues } from '../structuredProperties.js';
import type { BreakingChange, CountedChange } from '../compatibility.js';
import type { UrnNamespace } from '../typeUrns.js';
import type { Urn } from '../urn.js';
import type { HeldEntry } from '../valueMigration.js';
import type { AspectDecision } from './writeDecision.js';
import type { CurrentAspect, HeldValue, RegistryState } from './writeState.js';

/** The state a write of an aspect relies on, beside the entity's version and the aspect itself. */
export interface StateNeeds {
  /** Other aspects of the same entity. */
  readonly aspects: readonly string[];
  /** The entity's value rows, with their properties' records. */
  readonly values: boolean;
  /** Registry records of these properties (the only need that may depend on the new value). */
  readonly properties: readonly string[];
  /** Owners of these search field names. */
  readonly searchFields: readonly string[];
}

export const NO_NEEDS: StateNeeds = { aspects: [], values: false, properties: [], searchFields: [] };

/** What a view of a stored aspect may use. */
export interface ViewContext {
  readonly urn: Urn;
  /** The entity's value rows (loaded when the rules need values). */
  readonly values: readonly HeldValue[];
  /** The namespace type URNs are written and shown in (the server's URN_NAMESPACE). */
  readonly urnNamespace: UrnNamespace;
}

/**
 * Stored values of other entities a decision must know of, read under the write's lock
 * (store/propertyHolders.ts): a definition change is judged against the values it would
 * break, and a migration's effect is worked out from every held entry.
 */
export interface HolderQuestion {
  readonly propertyUrn: string;
  /** The generation whose values count (the property's current one). */
  readonly generation: bigint;
  readonly changes: readonly BreakingChange[];
  /** Read every held entry too. */
  readonly entries: boolean;
}

export interface HolderAnswer {
  readonly counted: readonly CountedChange[];
  readonly entries: readonly HeldEntry[] | null;
}

/** What a decision about one aspect may use. */
export interface AspectState extends ViewContext, RegistryState {
  /** The aspect as stored now; undefined when absent. */
  readonly stored: unknown;
  /** The entity's other loaded aspects (those the rules' needs named). */
  readonly aspects: ReadonlyMap<string, CurrentAspect>;
  /** What the request carries for the aspect's rules beside the value (a definition's migration); undefined when nothing. */
  readonly directive?: unknown;
  /** The answer to holdersToCount's question; undefined when none was asked. */
  readonly holders?: HolderAnswer;
  /** What a structuredProperties write does with a property that does not exist (DROP_UNDEFINED_PROPERTY_VALUES); absent: refuse. */
  readonly undefinedPropertyValues?: UndefinedPropertyValues;
}

export interface AspectRules {
  /** Whether writing this aspect creates its entity when it does not exist yet. */
  readonly createsEntity: boolean;
  /** The state a write of `value` relies on; `value` is undefined when not known before the load. */
  needs(urn: Urn, value: unknown): StateNeeds;
  /** What readers see of a stored aspect. */
  view(stored: unknown, context: ViewContext): unknown;
  /** Validates an untrusted new value against the state; throws a ServiceError, or decides. */
  decide(next: unknown, state: AspectState): AspectDecision;
  /**
   * Whether the decision relies on state the guarded statement cannot check (values
   * other entities hold): such writes are decided and applied in a transaction holding
   * the entity's lock, which writers of those values wait for.
   */
  readonly decidedUnderLock?: boolean;
  /**
   * Whether writes of the aspect change the property registry, which later writes of the
   * same plan may rely on (a batch defining a property, then setting its values).
   */
  readonly changesRegistry?: boolean;
  /** Whether a write of the aspect may carry a directive beside the value (a definition's migration). */
  readonly acceptsDirective?: boolean;
  /** What the decision must first know of values other entities hold; null when nothing. */
  holdersToCount?(next: unknown, state: AspectState): HolderQuestion | null;
}

/** A decision that stores `stored` as it is, with no effect beyond the aspect row. */
export function plainDecision(stored: unknown): AspectDecision {
  return { stored, visible: stored, store: 'if-changed', valueRows: null, registry: null, jobs: [], reliesOn: [], events: [] };
}

/** Views that show the stored aspect as it is. */
export const storedAsIs: AspectRules['view'] = (stored) => stored;
