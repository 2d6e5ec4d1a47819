/**
 * Read-your-writes (docs/contract.md §6): after its commit, a write waits until the change log says
 * its changes are indexed, for at most `timeoutMs`. It nudges the local indexer so the
 * wait is one batch, not a poll interval, and it never fails: the write is committed
 * whatever the index does; it says whether the changes were indexed in time. While the indexer is failing (Meilisearch down) writes do
 * not wait at all; the change log catches the index up later.
 */
import { unindexedAmong } from '../../store/changeLog.js';
import type { Db } from '../../store/database.js';
import { inSpan, inTrace, SpanKind } from '../../telemetry/tracing.js';
import type { IndexStatus } from '../writeReceipt.js';
import type { IndexWaiter } from '../indexWaiter.js';
import type { SearchIndexer } from './indexer.js';
import { endOfPass } from '../../platform/turns.js';

export class ChangeLogIndexWaiter implements IndexWaiter {
  readonly indexing = true;
  /** Changes asked about since the check below started; one check answers every write waiting on a batch. */
  private asked = new Set<bigint>();
  private check: Promise<Set<bigint>> | null = null;

  constructor(private readonly deps: { db: Db; indexer: SearchIndexer; timeoutMs: number }) {}

  /**
   * The changes among `ids` not indexed yet. The writes a batch wakes ask together: one
   * query for all of them (32 waiting writes were 32 queries per batch, on a database
   * the writes themselves keep busy).
   */
  private unindexed(ids: readonly bigint[]): Promise<Set<bigint>> {
    for (const id of ids) this.asked.add(id);
    this.check ??= endOfPass().then(() => {
      const ask = [...this.asked];
      this.asked = new Set();
      this.check = null;
      return unindexedAmong(this.deps.db, ask);
    });
    return this.check;
  }

  /** While tracing, the wait is a span of the write's trace, saying how it ended. */
  waitFor(changeIds: readonly bigint[]): Promise<IndexStatus> {
    if (!inTrace() || changeIds.length === 0) return this.waitForIndex(changeIds);
    return inSpan('search.index wait', SpanKind.INTERNAL, { 'propgraph.changes': changeIds.length }, async (span) => {
      const status = await this.waitForIndex(changeIds);
      span.setAttribute('propgraph.index_status', status);
      return status;
    });
  }

  private async waitForIndex(changeIds: readonly bigint[]): Promise<IndexStatus> {
    const { indexer, timeoutMs } = this.deps;
    if (changeIds.length === 0) return 'indexed';
    // A process that does not run the indexer itself (BACKGROUND_WORKERS=false) still waits: another replica may index.
    if (timeoutMs <= 0 || !indexer.state.healthy) return 'pending';
    const deadline = Date.now() + timeoutMs;
    indexer.nudge();
    while (Date.now() < deadline) {
      // The batch that picks these changes up may be running already; wait for the one after it at most.
      await indexer.nextBatch(Math.min(200, Math.max(1, deadline - Date.now())));
      try {
        const unindexed = await this.unindexed(changeIds);
        if (changeIds.every((id) => !unindexed.has(id))) return 'indexed';
      } catch {
        return 'pending';
      }
      if (!indexer.state.healthy) return 'pending';
    }
    return 'pending';
  }
}
