/**
 * Lookups that share one statement at a time (issue #46, item 11). Requests from an
 * address past its failed-authentication limit (rest/authFailures.ts) still have their
 * token looked up, so a good token works whoever else failed from its address, but
 * their lookups queue here: one statement in flight, at most one started per round, each
 * answering every key that waited. A flood of bad tokens then costs the database a
 * query per round, not a query per request; past `maxWaiting` keys a lookup is refused
 * at once.
 */

export type SharedAnswer<T> = { readonly found: T | undefined } | 'full';

export interface SharedLookupOptions<T> {
  /** Finds the rows of many keys in one statement. */
  readonly lookup: (keys: readonly string[]) => Promise<ReadonlyMap<string, T>>;
  /** Keys one statement asks for at most. */
  readonly maxKeys: number;
  /** Keys waiting at most; beyond, `find` answers 'full'. */
  readonly maxWaiting: number;
  /** Milliseconds from one statement's start to the next one's, at least. */
  readonly roundMs: number;
  /** Told of every key asked for (queued, or refused with the queue full) and every statement. */
  readonly counted?: { queued(outcome: 'queued' | 'full'): void; statement(): void };
}

interface Waiter<T> {
  resolve(answer: SharedAnswer<T>): void;
  reject(err: unknown): void;
}

export class SharedLookups<T> {
  private readonly waiting = new Map<string, Waiter<T>[]>();
  private running = false;
  private lastStart = 0;

  constructor(private readonly options: SharedLookupOptions<T>) {}

  find(key: string): Promise<SharedAnswer<T>> {
    if (!this.waiting.has(key) && this.waiting.size >= this.options.maxWaiting) {
      this.options.counted?.queued('full');
      return Promise.resolve('full');
    }
    this.options.counted?.queued('queued');
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(key) ?? [];
      list.push({ resolve, reject });
      this.waiting.set(key, list);
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.size > 0) {
        // Keys arriving meanwhile join this statement.
        const early = this.lastStart + this.options.roundMs - Date.now();
        if (early > 0) await new Promise((r) => setTimeout(r, early));
        this.lastStart = Date.now();
        const keys = [...this.waiting.keys()].slice(0, this.options.maxKeys);
        const waiters = keys.map((k) => {
          const list = this.waiting.get(k)!;
          this.waiting.delete(k);
          return list;
        });
        this.options.counted?.statement();
        try {
          const rows = await this.options.lookup(keys);
          keys.forEach((k, i) => waiters[i]!.forEach((w) => w.resolve({ found: rows.get(k) })));
        } catch (err) {
          waiters.flat().forEach((w) => w.reject(err));
        }
      }
    } finally {
      this.running = false;
    }
  }
}
