/**
 * The cleanup job behind hard delete and breaking version changes (docs/contract.md §2, §5): it
 * removes, entity by entity and in batches, the values of a property that were
 * written under another generation than the property's current one (all of them
 * when the property is gone). Readers stopped seeing those values when the change
 * committed; this job only reclaims them. Each batch is one transaction, so a crash
 * loses at most the batch in flight, which the next attempt redoes.
 */
import { decideValueCleanup } from '../../domain/writes/valueCleanup.js';
import type { EntityWriteDecision } from '../../domain/writes/writeDecision.js';
import type { Db } from '../../store/database.js';
import { findProperty } from '../../store/propertyRegistry.js';
import { countStaleHolders, staleHolders } from '../../store/propertyValues.js';
import { inTransaction } from '../../store/transaction.js';
import { applyWrites } from '../../store/writeApply.js';
import { loadWriteState, type WriteTarget } from '../../store/writeLoad.js';

export interface CleanupBatch {
  readonly removed: number;
  readonly changeIds: bigint[];
}

export async function remainingStaleValues(db: Db, propertyUrn: string): Promise<number> {
  const current = (await findProperty(db, propertyUrn))?.generation ?? null;
  return countStaleHolders(db, propertyUrn, current);
}

/** Removes up to `limit` stale values of the property; 0 removed means done. */
export async function cleanupBatch(db: Db, propertyUrn: string, actor: string, limit: number): Promise<CleanupBatch> {
  const current = (await findProperty(db, propertyUrn))?.generation ?? null;
  const holders = await staleHolders(db, propertyUrn, current, limit);
  if (holders.length === 0) return { removed: 0, changeIds: [] };
  return inTransaction(db, async (tx) => {
    const target: WriteTarget = { kind: 'locked', tx };
    // Decided under the entity locks: a value may have been written again under the current generation meanwhile.
    const state = await loadWriteState(target, {
      entities: holders.map((h) => ({ urn: h.entityUrn, entityType: h.entityType, create: false, values: true, parent: null })),
      aspects: ['structuredProperties'],
      properties: [],
      searchFields: [],
    });
    const now = Date.now();
    const decisions: EntityWriteDecision[] = [];
    for (const h of holders) {
      const entity = state.entities.get(h.entityUrn)!;
      const decision = entity.existence === 'missing' ? null : decideValueCleanup({ urn: h.entityUrn, entityType: h.entityType }, entity, propertyUrn, { actor, now });
      if (decision) decisions.push(decision);
    }
    const ids = await applyWrites(target, decisions, state);
    return { removed: decisions.length, changeIds: [...ids!.values()] };
  });
}
