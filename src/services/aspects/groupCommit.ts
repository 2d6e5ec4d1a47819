/**
 * Group commit (issue #44): a write that arrives while others are being written waits,
 * and goes with every other such write into the next statement, which commits them all
 * at once: one load, each entity decided for its own write, one guarded statement, one
 * commit (PostgreSQL's cost per write is mostly its commit: the WAL write and its fsync).
 * A write that finds a free slot starts at once, so a lone writer waits for nobody.
 *
 * A few statements may be in flight at once (`maxInFlight`): one statement waiting on a
 * row lock (a long job's chunk, a transaction held open) holds one slot, not every write
 * of the process, and writes never take more connections than that from the pool.
 *
 * Each write keeps its own answer, atomicity and order: two writes naming the same
 * entity never share a statement or run at once, and a later one is not taken ahead of
 * an earlier one it shares an entity with. A group holds at most `maxEntities` entities.
 */

/** A write as the group sees it: the entities it names. */
export interface GroupMember {
  readonly entities: ReadonlyArray<{ readonly urn: { readonly value: string } }>;
}

interface Waiting<U, R> {
  readonly unit: U;
  readonly run: (units: U[]) => Promise<R[]>;
  readonly resolve: (result: R) => void;
  readonly reject: (err: unknown) => void;
}

export interface GroupCommitStats {
  /** Statements written, and writes they carried. */
  readonly groups: number;
  readonly writes: number;
}

export class GroupCommit<U extends GroupMember, R> {
  private readonly queue: Waiting<U, R>[] = [];
  /** The entities of the statements in flight: a write naming one waits for its statement. */
  private readonly inFlight = new Set<string>();
  private running = 0;
  private groups = 0;
  private writes = 0;

  /** `observe` is told how many writes each group carried (the metrics). */
  constructor(
    private readonly maxEntities = 1000,
    private readonly observe: (writes: number) => void = () => {},
    private readonly maxInFlight = 2,
  ) {}

  /** Writes `unit` with whatever else is waiting, through `run` (which answers each unit of the group, in order). */
  write(unit: U, run: (units: U[]) => Promise<R[]>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ unit, run, resolve, reject });
      this.pump();
    });
  }

  get stats(): GroupCommitStats {
    return { groups: this.groups, writes: this.writes };
  }

  /** Starts groups while a slot is free and a waiting write may go. */
  private pump(): void {
    while (this.running < this.maxInFlight && this.queue.length > 0) {
      const group = this.take();
      if (group.length === 0) return;
      void this.start(group);
    }
  }

  private async start(group: Waiting<U, R>[]): Promise<void> {
    const urns = group.flatMap((w) => w.unit.entities.map((e) => e.urn.value));
    for (const u of urns) this.inFlight.add(u);
    this.running++;
    this.groups++;
    this.writes += group.length;
    this.observe(group.length);
    try {
      const results = await group[0]!.run(group.map((w) => w.unit));
      group.forEach((w, i) => w.resolve(results[i]!));
    } catch (err) {
      // A failure of the statement itself (the database gone): every write of the group is told.
      for (const w of group) w.reject(err);
    } finally {
      for (const u of urns) this.inFlight.delete(u);
      this.running--;
      this.pump();
    }
  }

  /**
   * The next group: waiting writes in arrival order, none sharing an entity with one
   * before it or with a statement in flight, up to the entity bound.
   */
  private take(): Waiting<U, R>[] {
    const group: Waiting<U, R>[] = [];
    const taken = new Set<string>();
    const blocked = new Set<string>(this.inFlight);
    let size = 0;
    for (let i = 0; i < this.queue.length; ) {
      const w = this.queue[i]!;
      const urns = w.unit.entities.map((e) => e.urn.value);
      const clash = urns.some((u) => taken.has(u) || blocked.has(u));
      if (clash || (group.length > 0 && size + urns.length > this.maxEntities)) {
        // Later writes naming these entities wait behind this one.
        for (const u of urns) blocked.add(u);
        i++;
        continue;
      }
      group.push(w);
      for (const u of urns) taken.add(u);
      size += urns.length;
      this.queue.splice(i, 1);
    }
    return group;
  }
}
