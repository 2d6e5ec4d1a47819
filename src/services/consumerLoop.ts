/**
 * The loop of background work: start, stop, a nudge, steps while there is work, a poll's
 * wait when there is none, and back-off after a failure. The job worker (jobs/worker.ts)
 * runs on it as it is; the change-log consumers below add a lease.
 *
 * - A failed step is retried with back-off, 200 ms doubling to 5 s, spread so that
 *   replicas drift apart; one log line when trouble starts, then one every 20 attempts,
 *   and one when it recovers.
 * - A step that found nothing is followed by the idle wait (a poll, or less when the
 *   loop knows work is due sooner), cut short by a nudge.
 * - A loop may gather: after a step that handled some work but less than a full batch,
 *   it waits a moment before the next, and a nudge does not cut that short (only a stop
 *   does). The first change after a quiet spell is handled at once; those that follow it
 *   under a stream of writes wait at most that long and share one step, instead of one
 *   step each. A full batch (a backlog) is followed at once.
 *
 * The change-log consumers run on one replica at a time, which the search indexer
 * (searchIndex/indexer.ts) and the metadata-test evaluator (testEvaluation/evaluator.ts)
 * extend: they hold the consumer's lease (store/leases.ts), renewed whenever a third of
 * its time-to-live has passed; a process without it waits that third and asks again.
 * A consumer extends it with its step, and what it forgets when a step fails or the
 * lease is held elsewhere.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../platform/logger.js';
import type { Db } from '../store/database.js';
import { acquireLease, releaseLease } from '../store/leases.js';
import { backoffMs, DEFAULT_LEASE_SECONDS, WakeableSleep } from '../platform/time.js';

export interface WorkLoopOptions {
  readonly log: Logger;
  /** How the loop's log lines name it. */
  readonly name: string;
  /** How often an idle loop looks for work. */
  readonly pollMs?: number | undefined;
  /** After a step that handled fewer than `fewerThan` items (but some), how long to let more gather before the next; none: step again at once. */
  readonly gather?: Gather | undefined;
}

export interface Gather {
  readonly ms: number;
  readonly fewerThan: number;
}

/** Between failed steps: 200 ms doubling to 5 s, spread so that replicas drift apart. */
const RETRY_BACKOFF = { baseMs: 200, maxMs: 5_000, jitter: true };

export abstract class WorkLoop {
  private readonly pause = new WakeableSleep();
  private readonly gathering = new WakeableSleep();
  private running = false;
  private loopDone: Promise<void> | undefined;
  private healthy = true;
  private lastError: string | null = null;

  constructor(private readonly workOptions: WorkLoopOptions) {}

  /** One step: how much work it handled (0: nothing to do, the idle wait follows). */
  protected abstract step(): Promise<number>;
  /** A step threw: forget what it may have left half done (before the back-off). */
  protected abstract failed(err: unknown): void;
  /** After a step that handled nothing, before the idle wait. */
  protected idle?(): Promise<void>;
  /** How long the idle wait lasts; absent: the poll. */
  protected idleMs?(pollMs: number): Promise<number>;
  /** Before each step: how long to wait instead of stepping (null: step now). */
  protected async notReadyFor(): Promise<number | null> {
    return null;
  }
  /** After the loop has ended, as it stops. */
  protected async ended(): Promise<void> {}

  protected get workState(): { running: boolean; healthy: boolean; lastError: string | null } {
    return { running: this.running, healthy: this.healthy, lastError: this.lastError };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.nudge();
    this.gathering.wake();
    await this.loopDone;
    await this.ended();
  }

  /** Look for work now rather than at the next poll. */
  nudge(): void {
    this.pause.wake();
  }

  private async loop(): Promise<void> {
    const { log, name } = this.workOptions;
    const pollMs = this.workOptions.pollMs ?? 250;
    let failures = 0;
    while (this.running) {
      let handled = 0;
      try {
        const wait = await this.notReadyFor();
        if (wait !== null) {
          await this.pause.sleep(wait);
          continue;
        }
        handled = await this.step();
        if (failures > 0) log.info({ after: failures }, `${name} recovered`);
        failures = 0;
        this.healthy = true;
        this.lastError = null;
      } catch (err) {
        failures++;
        this.failed(err);
        this.healthy = false;
        this.lastError = (err as Error).message.slice(0, 500);
        // One line when trouble starts, then one every 20 attempts.
        if (failures === 1 || failures % 20 === 0) log.warn({ err: this.lastError, failures }, `${name}: step failed; will retry`);
        await this.pause.sleep(backoffMs(failures, RETRY_BACKOFF));
        continue;
      }
      const gather = this.workOptions.gather;
      if (gather && gather.ms > 0 && handled > 0 && handled < gather.fewerThan && this.running) {
        await this.gathering.sleep(gather.ms);
      } else if (handled === 0 && this.running) {
        let wait = pollMs;
        try {
          if (this.idle) await this.idle();
          if (this.idleMs) wait = await this.idleMs(pollMs);
        } catch {
          // The idle work is retried at the next idle turn; the loop's own step reports a database away.
        }
        await this.pause.sleep(wait);
      }
    }
  }
}

export interface ConsumerLoopOptions {
  readonly db: Db;
  readonly log: Logger;
  /** The lease's name: one holder at a time. */
  readonly lease: string;
  /** How this process's holder id starts (the rest is random). */
  readonly holderPrefix: string;
  /** How the loop's log lines name the consumer. */
  readonly name: string;
  /** How often an idle consumer looks for new changes. */
  readonly pollMs?: number | undefined;
  readonly gather?: Gather | undefined;
  readonly leaseSeconds?: number | undefined;
  /** Fields the lease's log lines carry beside the holder. */
  readonly leaseLogFields?: () => Record<string, unknown>;
}

export interface ConsumerLoopState {
  /** Whether this process runs the loop at all (BACKGROUND_WORKERS). */
  readonly running: boolean;
  readonly leader: boolean;
  readonly healthy: boolean;
  readonly lastError: string | null;
}

export abstract class ConsumerLoop extends WorkLoop {
  protected readonly holder: string;
  private leader = false;
  private renewedAt = 0;

  constructor(private readonly loopOptions: ConsumerLoopOptions) {
    super({ log: loopOptions.log, name: loopOptions.name, pollMs: loopOptions.pollMs, gather: loopOptions.gather });
    this.holder = `${loopOptions.holderPrefix}-${randomUUID()}`;
  }

  /** The lease was asked for and is held elsewhere. */
  protected abstract notHeld(): void;

  protected get loopState(): ConsumerLoopState {
    return { ...this.workState, leader: this.leader };
  }

  protected override async notReadyFor(): Promise<number | null> {
    return (await this.holdLease()) ? null : this.leaseMs() / 3;
  }

  protected override async ended(): Promise<void> {
    if (this.leader) await releaseLease(this.loopOptions.db, this.loopOptions.lease, this.holder).catch(() => undefined);
    this.leader = false;
  }

  /** True while this process holds the lease, renewed whenever a third of it has passed. */
  protected async holdLease(): Promise<boolean> {
    if (this.leader && performance.now() - this.renewedAt < this.leaseMs() / 3) return true;
    const asked = performance.now();
    const held = await acquireLease(this.loopOptions.db, this.loopOptions.lease, this.holder, this.leaseMs() / 1000);
    if (held) this.renewedAt = asked;
    if (held !== this.leader) {
      this.loopOptions.log.info({ holder: this.holder, ...this.loopOptions.leaseLogFields?.() }, `${this.loopOptions.name}: ${held ? 'took the lease' : 'lease held elsewhere'}`);
    }
    if (!held) this.notHeld();
    this.leader = held;
    return held;
  }

  private leaseMs(): number {
    return (this.loopOptions.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;
  }
}
