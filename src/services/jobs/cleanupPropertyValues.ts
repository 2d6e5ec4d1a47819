/**
 * The cleanup job behind hard delete and breaking version changes (docs/contract.md §2,
 * §5): it removes, entity by entity and in batches, the values of a property that were
 * written under another generation than the property's current one (all of them when
 * the property is gone). Readers stopped seeing those values when the change committed;
 * this job only reclaims them. Each batch is one plan through the one write entry point
 * (the system's: every holder's aspect written again as readers see it, which leaves the
 * hidden values out), so retention, the change log and history apply as to any write; a
 * crash loses at most the batch in flight, which the next attempt redoes. The job keeps
 * pace with the search index one batch behind (worker.ts): a batch is written while the
 * one before it is indexed, and the next waits until that one is (bounded by
 * INDEX_WAIT_MS, not at all while the indexer fails), so the job never runs further ahead
 * of the indexer than one batch (docs/decisions.md, "Each principal's share of the
 * server").
 *
 * Hard means gone (issues #29, #39, #46): every older version of any entity's
 * structuredProperties written no later than the change loses the property too, whether
 * the property was defined again since or not (a re-created property is a new lineage;
 * the old one's values must not come back through history). The version a holder's
 * write moves into history loses it on the way, in the same statement; the versions
 * older than that, then, in pages.
 */
import { ASPECT } from '../../domain/aspects/index.js';
import { withoutPropertyInVersion } from '../../domain/writes/valueCleanup.js';
import { parseUrn } from '../../domain/urn.js';
import type { EntityPlan } from '../../domain/writes/plan.js';
import { historyNaming, rewriteHistory, type HistoryRow } from '../../store/aspectHistory.js';
import type { Db, Queryable } from '../../store/database.js';
import { countStaleHolders, staleHolders } from '../../store/propertyValues.js';
import { SYSTEM_CALLER } from '../caller.js';
import type { WriteService } from '../writes/writeService.js';

export async function remainingStaleValues(db: Db, propertyUrn: string): Promise<number> {
  return countStaleHolders(db, propertyUrn);
}

/**
 * Removes the stale values of the property from up to `limit` holders after `after` (in
 * urn order), without waiting for the index; returns how many holders it rewrote (0:
 * none is left after `after`), the urn to go on from and the last change it logged (0
 * when none), which the caller waits on.
 * A holder the write path refuses (it should not happen: the write only takes values
 * out) fails the batch, naming it, rather than coming back for ever.
 */
export async function cleanupBatch(db: Db, writes: WriteService, propertyUrn: string, after: string, limit: number): Promise<{ rewritten: number; nextUrn: string; lastChange: bigint }> {
  const holders = await staleHolders(db, propertyUrn, after, limit);
  if (holders.length === 0) return { rewritten: 0, nextUrn: after, lastChange: 0n };
  const entities: EntityPlan[] = holders.map((h) => ({
    urn: parseUrn(h.entityUrn),
    changes: [
      {
        op: 'compute',
        aspect: ASPECT.structuredProperties,
        // What readers see leaves the stale values out; written again, they are gone from the aspect and the value rows.
        compute: (current: unknown) => current ?? { properties: [] },
        // The version this write moves into history loses the property as it moves: the history pass need not visit it.
        historyOf: (stored: unknown) => withoutPropertyInVersion(stored, propertyUrn),
        systemMetadata: { runId: 'property-cleanup' },
      },
    ],
  }));
  const { result, receipt } = await writes.submit(SYSTEM_CALLER, { entities }, { atomic: false, skipMissing: true, async: true });
  const refused = result.entities.filter((e) => e.status === 'refused');
  if (refused.length > 0) throw new Error(`the cleanup of ${propertyUrn} could not rewrite ${refused.length} holders, e.g. ${refused[0]!.urn}: ${refused[0]!.error?.message}`);
  return { rewritten: holders.length, nextUrn: holders.at(-1)!.entityUrn, lastChange: receipt.lastChange };
}

async function scrub(db: Queryable, rows: readonly HistoryRow[], propertyUrn: string): Promise<void> {
  await rewriteHistory(db, rows.map((r) => ({ ...r, metadata: withoutPropertyInVersion(r.metadata, propertyUrn) })));
}

/**
 * Rewrites up to `limit` older versions that still name the property and were written
 * no later than the change (`changedBy`, the job's creation), from `fromUrn`. Returns
 * how many it rewrote and the urn to go on from; 0 means done.
 */
export async function scrubHistoryBatch(db: Db, propertyUrn: string, changedBy: Date, fromUrn: string, limit: number): Promise<{ rewritten: number; nextUrn: string }> {
  const rows = await historyNaming(db, propertyUrn, changedBy, fromUrn, limit);
  await scrub(db, rows, propertyUrn);
  return { rewritten: rows.length, nextUrn: rows.at(-1)?.urn ?? fromUrn };
}
