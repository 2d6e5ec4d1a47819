/**
 * The cleanup job behind hard delete and breaking version changes (docs/contract.md §2, §5): it
 * removes, entity by entity and in batches, the values of a property that were
 * written under another generation than the property's current one (all of them
 * when the property is gone). Readers stopped seeing those values when the change
 * committed; this job only reclaims them. Each batch is one transaction, so a crash
 * loses at most the batch in flight, which the next attempt redoes.
 *
 * Hard means gone (issue #29): each cleaned entity's older versions of its
 * structuredProperties aspect lose the property too, in the same transaction (every
 * such version was written under an older generation, or the entity would not hold a
 * stale value). Once no stale value is left of a property that is gone, the older
 * versions of every other entity that named it (whose value was removed before the
 * delete) are rewritten the same way, in pages.
 */
import { decideValueCleanup, withoutPropertyInVersion } from '../../domain/writes/valueCleanup.js';
import type { EntityWriteDecision } from '../../domain/writes/writeDecision.js';
import { historyNaming, historyOfEntitiesNaming, rewriteHistory, type HistoryRow } from '../../store/aspectHistory.js';
import type { Db, Queryable } from '../../store/database.js';
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
      const decision = entity.existence === 'missing' ? null : decideValueCleanup({ urn: h.entityUrn, entityType: h.entityType }, entity, propertyUrn, { actor, now, via: 'system' });
      if (decision) decisions.push(decision);
    }
    const ids = await applyWrites(target, decisions, state);
    // After the write, whose statement moved each cleaned latest version into the history.
    await scrub(tx, await historyOfEntitiesNaming(tx, holders.map((h) => h.entityUrn), propertyUrn), propertyUrn);
    return { removed: decisions.length, changeIds: [...ids!.values()] };
  });
}

async function scrub(db: Queryable, rows: readonly HistoryRow[], propertyUrn: string): Promise<void> {
  await rewriteHistory(db, rows.map((r) => ({ ...r, metadata: withoutPropertyInVersion(r.metadata, propertyUrn) })));
}

/** Whether the property is gone (hard deleted, not defined again since): then no version anywhere may keep it. */
export async function propertyGone(db: Db, propertyUrn: string): Promise<boolean> {
  return (await findProperty(db, propertyUrn)) === undefined;
}

/**
 * Rewrites up to `limit` older versions that still name a gone property and were
 * written no later than the delete (`deletedBy`, the job's creation), from `fromUrn`.
 * Returns how many it rewrote and the urn to go on from; 0 means done.
 */
export async function scrubHistoryBatch(db: Db, propertyUrn: string, deletedBy: Date, fromUrn: string, limit: number): Promise<{ rewritten: number; nextUrn: string }> {
  const rows = await historyNaming(db, propertyUrn, deletedBy, fromUrn, limit);
  await scrub(db, rows, propertyUrn);
  return { rewritten: rows.length, nextUrn: rows.at(-1)?.urn ?? fromUrn };
}
