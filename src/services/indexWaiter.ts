/**
 * Read-your-writes: after a commit, a write may wait (bounded) until the search
 * index reflects its changes. The search module provides the real waiter; without
 * search, writes return at commit (their changes wait in the change log: pending).
 */
import type { IndexStatus } from './writeReceipt.js';

export interface IndexWaiter {
  /** Whether a search index takes changes at all (false when search is disabled: they wait in the change log). */
  readonly indexing: boolean;
  /** Resolves when the changes are indexed (`indexed`) or the bound has passed (`pending`); never rejects. */
  waitFor(changeIds: readonly bigint[]): Promise<IndexStatus>;
}

export const NO_WAIT: IndexWaiter = { indexing: false, waitFor: async () => 'pending' };
