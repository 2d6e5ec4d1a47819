/**
 * How one kind of aspect is validated, stored and shown. The write pipeline
 * (pipeline.ts) is the same for every aspect; what differs lives in a handler, chosen
 * by entity type and aspect name in handlers.ts.
 */
import type { Urn } from '../../domain/urn.js';
import type { ValueState } from '../../store/entityWrites.js';
import type { RegisteredProperty } from '../../store/propertyRegistry.js';
import type { Db, Tx } from '../../store/database.js';
import type { ValueRow } from '../../store/propertyValues.js';

export type Queryable = Db | Tx;

export interface PreparedAspect {
  /** The aspect as it will be stored. */
  readonly stored: unknown;
  /** Key aspects are derived from the URN and never stored. */
  readonly skipWrite?: boolean;
  /** What readers see of `stored`, when the handler already knows it (saves a query). */
  readonly visible?: unknown;
  /**
   * Write even when `stored` equals the stored aspect: its meaning changed (values
   * re-asserted under a new definition version), so afterWrite and the change log
   * must still run.
   */
  readonly forceWrite?: boolean;
  /** Replaces the entity's property_value rows, in the same statement as the aspect write. */
  readonly valueRows?: readonly ValueRow[];
  /** Runs in the same transaction after the aspect row is written. */
  readonly afterWrite?: (tx: Tx) => Promise<void>;
}

/** What a write loaded together with the entity lock, for handlers that need it. */
export interface WriteContext {
  /** The entity's property value rows with their properties' state (when a handler asked). */
  readonly valueStates: readonly ValueState[];
  /** Properties named by the new values, looked up once for a whole batch. */
  readonly properties: ReadonlyMap<string, RegisteredProperty>;
}

export interface AspectHandler {
  /** Whether writing this aspect creates the entity when it does not exist yet. */
  readonly createsEntity: boolean;
  /** Whether a write needs the entity's value states (loaded in the same query as the lock). */
  readonly needsValueStates?: boolean;
  /** What readers see of stored aspects (e.g. values of deleted properties hidden). */
  view(db: Queryable, items: ReadonlyArray<{ urn: string; stored: unknown }>): Promise<unknown[]>;
  /** Structured properties a new value names, so a batch can look them all up at once. */
  propertiesNamedBy?(next: unknown): string[];
  /** The same as `view`, inside a write, from what the write already loaded (no query). */
  viewForWrite?(stored: unknown, ctx: WriteContext): unknown;
  /** Validates an untrusted new value against the stored one; throws a ServiceError. */
  prepare(q: Queryable, urn: Urn, next: unknown, stored: unknown | undefined, ctx: WriteContext): Promise<PreparedAspect>;
  /** Runs in the transaction that deletes the aspect (or its whole entity). */
  onDelete?(tx: Tx, urn: Urn): Promise<void>;
}

/** Views that show the stored aspect as it is. */
export const identityView: AspectHandler['view'] = async (_db, items) => items.map((i) => i.stored);
