/**
 * The loop of a change-log consumer that runs on one replica at a time, which the
 * search indexer (searchIndex/indexer.ts) and the metadata-test evaluator
 * (testEvaluation/evaluator.ts) extend.
 *
 * - It holds the consumer's lease (store/leases.ts), renewed whenever a third of its
 *   time-to-live has passed; a process without it waits that third and asks again.
 * - While holding it, it takes steps: the consumer reads a batch of changes, handles
 *   them and moves on (marking them, or recording its position); a step that found
 *   nothing is followed by a poll's wait, cut short by a nudge.
 * - A failed step is retried with back-off, 200 ms doubling to 5 s, spread so that
 *   replicas drift apart; one log line when trouble starts, then one every 20 attempts,
 *   and one when it recovers.
 *
 * A consumer extends it with its step, and what it forgets when a step fails or the
 * lease is held elsewhere.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { Db } from '../store/database.js';
import { acquireLease, releaseLease } from '../store/leases.js';
import { backoffMs, DEFAULT_LEASE_SECONDS, WakeableSleep } from '../time.js';

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

/** Between failed steps: 200 ms doubling to 5 s, spread so that replicas drift apart. */
const RETRY_BACKOFF = { baseMs: 200, maxMs: 5_000, jitter: true };

export abstract class ConsumerLoop {
  protected readonly holder: string;
  private readonly pause = new WakeableSleep();
  private running = false;
  private loopDone: Promise<void> | undefined;
  private leader = false;
  private renewedAt = 0;
  private healthy = true;
  private lastError: string | null = null;

  constructor(private readonly loopOptions: ConsumerLoopOptions) {
    this.holder = `${loopOptions.holderPrefix}-${randomUUID()}`;
  }

  /** One step as the lease holder: how many changes it handled (0: nothing to do, a poll's wait follows). */
  protected abstract step(): Promise<number>;
  /** A step threw: forget what it may have left half done (before the back-off). */
  protected abstract failed(err: unknown): void;
  /** The lease was asked for and is held elsewhere. */
  protected abstract notHeld(): void;
  /** After a step that handled nothing, before the poll's wait. */
  protected idle?(): Promise<void>;

  protected get loopState(): ConsumerLoopState {
    return { running: this.running, leader: this.leader, healthy: this.healthy, lastError: this.lastError };
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
    await this.loopDone;
    if (this.leader) await releaseLease(this.loopOptions.db, this.loopOptions.lease, this.holder).catch(() => undefined);
    this.leader = false;
  }

  /** Look for changes now rather than at the next poll. */
  nudge(): void {
    this.pause.wake();
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

  private async loop(): Promise<void> {
    const { log, name } = this.loopOptions;
    let failures = 0;
    while (this.running) {
      let handled = 0;
      try {
        if (!(await this.holdLease())) {
          await this.pause.sleep(this.leaseMs() / 3);
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
        if (failures === 1 || failures % 20 === 0) log.warn({ err: this.lastError, failures }, `${name}: batch failed; will retry`);
        await this.pause.sleep(backoffMs(failures, RETRY_BACKOFF));
        continue;
      }
      if (handled === 0) {
        if (this.idle) await this.idle();
        await this.pause.sleep(this.loopOptions.pollMs ?? 250);
      }
    }
  }

  private leaseMs(): number {
    return (this.loopOptions.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;
  }
}
