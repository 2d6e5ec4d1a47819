/** Waiting: a plain sleep, the one back-off formula, a sleep that can be cut short, and how long claimed work stays claimed. Turns of the event loop are src/platform/turns.ts. */

/**
 * How long background work a replica claimed (a job, the indexer, the test evaluator) stays
 * its own without a renewal, unless LEASE_SECONDS says otherwise: another replica takes
 * over the work of one that died within this long.
 */
export const DEFAULT_LEASE_SECONDS = 15;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface BackoffOptions {
  readonly baseMs: number;
  readonly maxMs: number;
  /** Spread each delay over ±25% so that replicas retrying together drift apart. */
  readonly jitter?: boolean;
}

/** The delay before retry number `failures` (1 = after the first failure): doubling from baseMs, capped at maxMs. */
export function backoffMs(failures: number, options: BackoffOptions): number {
  const delay = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
  return options.jitter ? delay * (0.75 + Math.random() / 2) : delay;
}

/**
 * A sleep that `wake()` ends early: background loops (job worker, indexer, a child
 * process's restarts) sleep between polls or retries and are woken when there is work,
 * or when they must stop. A wake that comes while the loop is busy is kept for its
 * next sleep, which then returns at once: work notified mid-batch is not left waiting
 * for a whole poll interval.
 */
export class WakeableSleep {
  private wakeUp: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wokenEarly = false;

  sleep(ms: number): Promise<void> {
    if (this.wokenEarly) {
      this.wokenEarly = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.timer = setTimeout(() => this.wake(), ms);
      this.wakeUp = resolve;
    });
  }

  wake(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const resolve = this.wakeUp;
    this.wakeUp = undefined;
    if (resolve) resolve();
    else this.wokenEarly = true;
  }
}
