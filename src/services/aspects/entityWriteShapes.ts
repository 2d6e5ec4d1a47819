/**
 * What the write path (pipeline.ts) takes and answers: the entities of a write with their
 * requests, the options a write runs under, and what became of each entity.
 */
import type { ServiceError } from '../../domain/errors.js';
import type { UndefinedPropertyValues } from '../../domain/structuredProperties.js';
import type { UrnNamespace } from '../../domain/typeUrns.js';
import type { Urn } from '../../domain/urn.js';
import type { AspectWriteRequest } from '../../domain/writes/entityWrite.js';
import type { AspectResult, EntityWriteDecision } from '../../domain/writes/writeDecision.js';
import type { EntityState } from '../../domain/writes/writeState.js';

/** What became of one entity of a write. */
export type EntityResult =
  | {
      readonly status: 'decided';
      readonly results: readonly AspectResult[];
      /** Change log ids written (none for a dry run, or when nothing changed). */
      readonly changeIds: readonly bigint[];
      /** Whether the write changes the entity (a dry run: would change it). */
      readonly changed: boolean;
      /** Properties whose stored values the write drops (a new version of a property that has some). */
      readonly valuesDropped: readonly string[];
      /** What the decisions found beside the values (a migration's effect), by aspect. */
      readonly reports: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
    }
  /** Refused by a rule, a precondition or the caller's rights: written nothing. */
  | { readonly status: 'refused'; readonly error: ServiceError }
  /** Absent, and the write was told to leave out such entities. */
  | { readonly status: 'skipped' }
  /** Not written because another entity of an all-or-nothing write was refused. */
  | { readonly status: 'withheld' };

export interface EntityWriteOptions {
  /** All or nothing: any entity refused, none is written (the others are `withheld`); else each on its own. */
  readonly atomic: boolean;
  /** Refuse when the entity already exists (REST createEntityIfNotExists=true). */
  readonly createEntityOnly?: boolean;
  /**
   * Whether the writer may drop stored values of a property (a new version of a property
   * that has some, a migration that drops some); when not, such a write is refused naming
   * what it would drop and what it would take ("a token with admin scope").
   */
  readonly valueDrops: (propertyUrn: string) => 'allowed' | { readonly refusedUnless: string };
  /** The interface the write came through, stored with each aspect version beside the actor. */
  readonly via?: string | undefined;
  /** Earlier versions kept per aspect (HISTORY_VERSIONS_KEPT); absent or 0: all of them. */
  readonly historyVersionsKept?: number | undefined;
  /** The namespace type URNs are written and shown in (URN_NAMESPACE). */
  readonly urnNamespace: UrnNamespace;
  /** What a value of a property that does not exist does (DROP_UNDEFINED_PROPERTY_VALUES); absent: refused. */
  readonly undefinedPropertyValues?: UndefinedPropertyValues | undefined;
  /** Decide and check everything, then write nothing (dry runs). */
  readonly dryRun?: boolean;
  /** Leave out entities that do not exist (deleted since the caller listed them) instead of refusing them. */
  readonly skipMissing?: boolean;
  /** What only the decision shows is the caller's to be allowed (the policies), on the entity as the write found it: throws a ServiceError to refuse it. */
  readonly authorize?: (decision: EntityWriteDecision, entity: EntityState) => void;
  /** What the policies read of every entity written (the aspects and values their resources name), loaded with the write's state. */
  readonly authorizeNeeds?: { readonly aspects: readonly string[]; readonly values: boolean };
}

export interface EntityWrite {
  readonly urn: Urn;
  /** At most one request per aspect. */
  readonly requests: readonly AspectWriteRequest[];
  /** Refuse when the entity already exists (beside the write-wide option). */
  readonly createEntityOnly?: boolean;
}
