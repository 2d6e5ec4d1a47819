/**
 * Reads that cost the database a statement of up to a page of versions each (a page of
 * value history) run in lanes (issue #46 item 2): one at a time for each caller, and at
 * most `lanes` at once in the process. Ten aliases of `valueHistory(count: 1000)` in one
 * GraphQL operation sent ten such statements at once; on two cores they took every core
 * of the database from the statement of /health and from every other caller's request.
 * In a lane, the operation's pages go one after another on one connection: the caller
 * waits for their own reads, and nobody else waits for them past one page each.
 */
export class ReadLanes {
  /** The last read queued for each caller: the next one starts when it has ended. */
  private readonly lastOf = new Map<string, Promise<unknown>>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly lanes: number) {
    if (!Number.isSafeInteger(lanes) || lanes < 1) throw new RangeError(`lanes must be a whole number >= 1, got ${lanes}`);
  }

  /** Runs `read` after the caller's earlier reads (`key`: the caller's principal), in a free lane. */
  run<T>(key: string, read: () => Promise<T>): Promise<T> {
    const before = this.lastOf.get(key);
    const mine = (before ? before.then(settled, settled) : Promise.resolve()).then(() => this.inLane(read));
    const tail = mine.then(settled, settled);
    this.lastOf.set(key, tail);
    void tail.then(() => {
      if (this.lastOf.get(key) === tail) this.lastOf.delete(key);
    });
    return mine;
  }

  /** Reads running now and waiting for a lane (for tests and metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private async inLane<T>(read: () => Promise<T>): Promise<T> {
    if (this.running >= this.lanes) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await read();
    } finally {
      // The lane passes to the next waiting read as it is, or is freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

function settled(): void {}
