/**
 * How one kind of aspect is validated, stored and shown. The write pipeline
 * (pipeline.ts) is the same for every aspect; what differs lives in a handler, chosen
 * by entity type and aspect name in handlers.ts.
 */
import type { Urn } from '../../domain/urn.js';
import type { Db, Tx } from '../../store/database.js';

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
  /** Runs in the same transaction after the aspect row is written. */
  readonly afterWrite?: (tx: Tx) => Promise<void>;
}

export interface AspectHandler {
  /** Whether writing this aspect creates the entity when it does not exist yet. */
  readonly createsEntity: boolean;
  /** What readers see of stored aspects (e.g. values of deleted properties hidden). */
  view(db: Queryable, items: ReadonlyArray<{ urn: string; stored: unknown }>): Promise<unknown[]>;
  /** Validates an untrusted new value against the stored one; throws a ServiceError. */
  prepare(tx: Tx, urn: Urn, next: unknown, stored: unknown | undefined): Promise<PreparedAspect>;
  /** Runs in the transaction that deletes the aspect (or its whole entity). */
  onDelete?(tx: Tx, urn: Urn): Promise<void>;
}

/** Views that show the stored aspect as it is. */
export const identityView: AspectHandler['view'] = async (_db, items) => items.map((i) => i.stored);
