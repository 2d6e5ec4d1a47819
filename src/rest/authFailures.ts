/**
 * Failed authentications per client address (issue #29): a missing, malformed,
 * unknown, revoked or expired token counts against the address it came from, in a
 * window of a minute. Past the limit the address is answered 429 without its token
 * being looked up (a flood of bad tokens must not become a flood of database lookups),
 * until the window ends. Bounded: the least recently failing addresses are forgotten
 * first.
 */

const WINDOW_MS = 60_000;
/** Addresses remembered at once; beyond, the least recently failing are dropped. */
const CAPACITY = 10_000;

interface Window {
  readonly startedAt: number;
  failures: number;
}

export class AuthFailureThrottle {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly perMinute: number) {}

  /** Milliseconds until `address` may try again; 0 while it is under the limit. */
  retryAfterMs(address: string, now = Date.now()): number {
    const window = this.windows.get(address);
    if (!window) return 0;
    const left = window.startedAt + WINDOW_MS - now;
    if (left <= 0) {
      this.windows.delete(address);
      return 0;
    }
    return window.failures >= this.perMinute ? left : 0;
  }

  /** Counts one failed authentication of `address`. */
  fail(address: string, now = Date.now()): void {
    let window = this.windows.get(address);
    if (!window || window.startedAt + WINDOW_MS <= now) window = { startedAt: now, failures: 0 };
    window.failures++;
    // Re-inserted so that the map's order is the order of the latest failures.
    this.windows.delete(address);
    this.windows.set(address, window);
    if (this.windows.size > CAPACITY) this.windows.delete(this.windows.keys().next().value!);
  }

  get limit(): number {
    return this.perMinute;
  }
}
