/**
 * Read-your-writes (SPEC 6): after its commit, a write waits until the change log says
 * its changes are indexed, for at most `timeoutMs`. It nudges the local indexer so the
 * wait is one batch, not a poll interval, and it never fails: the write is committed
 * whatever the index does; it says whether the changes were indexed in time. While the indexer is failing (Meilisearch down) writes do
 * not wait at all; the change log catches the index up later.
 */
import { allIndexed } from '../../store/changeLog.js';
import type { Db } from '../../store/database.js';
import type { IndexStatus } from '../indexStatus.js';
import type { IndexWaiter } from '../indexWaiter.js';
import type { SearchIndexer } from './indexer.js';

export class ChangeLogIndexWaiter implements IndexWaiter {
  readonly indexing = true;

  constructor(private readonly deps: { db: Db; indexer: SearchIndexer; timeoutMs: number }) {}

  async waitFor(changeIds: readonly bigint[]): Promise<IndexStatus> {
    const { db, indexer, timeoutMs } = this.deps;
    if (changeIds.length === 0) return 'indexed';
    // A process that does not run the indexer itself (BACKGROUND_WORKERS=false) still waits: another replica may index.
    if (timeoutMs <= 0 || !indexer.state.healthy) return 'pending';
    const deadline = Date.now() + timeoutMs;
    indexer.nudge();
    while (Date.now() < deadline) {
      // The batch that picks these changes up may be running already; wait for the one after it at most.
      await indexer.nextBatch(Math.min(200, Math.max(1, deadline - Date.now())));
      try {
        if (await allIndexed(db, changeIds)) return 'indexed';
      } catch {
        return 'pending';
      }
      if (!indexer.state.healthy) return 'pending';
    }
    return 'pending';
  }
}
