/**
 * Read-your-writes: after a commit, a write may wait (bounded) until the search
 * index reflects its changes. The search module provides the real waiter; without
 * search, writes return at commit.
 */
export interface IndexWaiter {
  /** Resolves when the changes are indexed or the bound has passed; never rejects. */
  waitFor(changeIds: readonly bigint[]): Promise<void>;
}

export const NO_WAIT: IndexWaiter = { waitFor: async () => {} };
