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
import { findProperty } from '../../store/propertyRegistry.js';
import { scrubJobsOfProperty } from '../../store/jobs.js';
import { SYSTEM_CALLER } from '../caller.js';
import type { IndexWaiter } from '../indexWaiter.js';
import type { WriteService } from '../writes/writeService.js';
import { CLEANUP_PROPERTY_VALUES } from './kinds.js';
import type { JobContext, JobHandler } from './worker.js';

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

/**
 * Holders cleaned per transaction by the hard delete's cleanup (and history pages scrubbed
 * after it): 1,000 cleaned 100,000 holders in 37 s, 200 in 55 s (BENCHMARKS.md, "Scale"),
 * with /health's p99 under 100 ms either way; each batch holds its entities' locks for a
 * few hundred milliseconds.
 */
const CLEANUP_BATCH = 1000;

export interface CleanupDeps {
  readonly db: Db;
  /** The one write entry point, which the cleanup writes through. */
  readonly writes: WriteService;
  /** What the cleanup waits on (and nudges the indexer through), one batch behind, so it keeps pace with the search index. */
  readonly indexWaiter: IndexWaiter;
  /** Holders per batch, and older versions per page (CLEANUP_BATCH). */
  readonly batchSize?: number;
}

/** The job behind a hard delete or a breaking version change (kind CLEANUP_PROPERTY_VALUES): the holders, then the older versions. */
export function cleanupHandler(deps: CleanupDeps): JobHandler {
  return (ctx) => cleanup(deps, ctx);
}

async function cleanup(deps: CleanupDeps, ctx: JobContext): Promise<'done' | 'yield'> {
  const { db } = deps;
  const propertyUrn = String(ctx.job.payload.propertyUrn);
  const total = ctx.job.total ?? (await countStaleHolders(db, propertyUrn));
  let done = ctx.job.total === null ? 0 : ctx.job.done;
  await ctx.progress({ total, done });
  // Holders in urn order from a cursor; at the end, one pass more from the start, so a
  // holder left behind the cursor (none is expected: writes under a stale generation are
  // refused) is still cleaned. Done when a pass from the start finds none.
  let after = '';
  // One batch behind the index: a batch is written while the one before it is indexed
  // (the database's work beside Meilisearch's), then waits until that one is. Waiting
  // for each batch before writing the next left one of them idle at every step.
  let indexing: Promise<unknown> = Promise.resolve();
  for (;;) {
    if (ctx.stopping()) {
      await indexing;
      return 'yield';
    }
    const batch = await cleanupBatch(db, deps.writes, propertyUrn, after, deps.batchSize ?? CLEANUP_BATCH);
    const previous = indexing;
    if (batch.lastChange > 0n) indexing = deps.indexWaiter.waitFor([batch.lastChange]);
    await previous;
    if (batch.rewritten === 0) {
      if (after !== '') {
        after = '';
        continue;
      }
      await indexing;
      if ((await scrubHistory(deps, ctx, propertyUrn)) === 'yield') return 'yield';
      await ctx.progress({ total, done: total });
      return 'done';
    }
    after = batch.nextUrn;
    done += batch.rewritten;
    await ctx.progress({ total, done: Math.min(done, total) });
  }
}

/** The older versions written before the change that still name the property, page by page (a page is idempotent, so a restart simply goes on). */
async function scrubHistory(deps: CleanupDeps, ctx: JobContext, propertyUrn: string): Promise<'done' | 'yield'> {
  let from = '';
  for (;;) {
    if (ctx.stopping()) return 'yield';
    const page = await scrubHistoryBatch(deps.db, propertyUrn, ctx.job.createdOn, from, deps.batchSize ?? CLEANUP_BATCH);
    if (page.rewritten === 0) {
      // Hard means gone in the job table too: no earlier job keeps the property's values.
      const gone = (await findProperty(deps.db, propertyUrn)) === undefined;
      await scrubJobsOfProperty(deps.db, propertyUrn, ctx.job.createdOn, gone, CLEANUP_PROPERTY_VALUES);
      return 'done';
    }
    from = page.nextUrn;
    await ctx.progress({});
  }
}
