/**
 * Each principal's share of the server (issue #46: four clients in closed loops, each
 * within every size bound, together held /health's p99 at 113-150 ms while a bare server
 * on the same two cores answered in 13-20 ms). Bounding each request's cost does not
 * bound a client that sends the next one the moment the last is answered: the server
 * stays saturated, and everyone else waits for a core. So a principal whose requests
 * have kept the server busy for more than its share of the recent past waits before its
 * next request starts, but only while another principal has a request in flight: a lone
 * client, an ingestion run at full speed, is never slowed.
 *
 * "Busy" is the time a principal had at least one request in flight (ten aliases in one
 * operation are one request; two loops with one token overlap, not add up), decayed
 * exponentially with time constant TAU: a client in flight all the time tends to TAU,
 * one in flight half the time to TAU/2. A principal over SHARE x TAU waits until its
 * figure has decayed back to it, at most TAU x ln(1 / SHARE) (4.6 s at 0.4).
 * docs/decisions.md, "Each principal's share of the server", has the figures.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { shareDelays, shareDelaySeconds } from '../telemetry/metrics.js';
import { isHealthPath } from './systemRoutes.js';

/**
 * Time constant of the decayed busy time, ms. Several times the longest request a
 * principal may keep in flight (ten pages of value history take about a second under
 * attack): with 1 s, a client whose requests each last a second was held a quarter of a
 * second between them and kept the server 80% of the time. A new principal may keep the
 * server busy about TAU x ln(1 / (1 - SHARE)) before it is held (2.6 s at 0.4).
 */
export const TAU_MS = 5000;

interface Account {
  /** Decayed busy time at `at`, ms. */
  busy: number;
  at: number;
  inFlight: number;
}

/** The accounting, apart from HTTP: principals by key, the clock injected (test/unit/serverShare.test.ts). */
export class ServerShare {
  private readonly accounts = new Map<string, Account>();
  private inFlightTotal = 0;
  private prunedAt = 0;

  constructor(
    /** The share of the recent past a principal may keep the server busy, 0 < share <= 1 (1: never wait). */
    private readonly share: number,
    private readonly now: () => number = () => performance.now(),
    private readonly tau: number = TAU_MS,
  ) {}

  /** How long a request of `key` should wait before it starts, ms (0: start now). */
  delayFor(key: string): number {
    if (this.share >= 1) return 0;
    const account = this.accounts.get(key);
    if (!account) return 0;
    // Only while someone else has a request in flight: fairness costs a lone client nothing.
    if (this.inFlightTotal - account.inFlight <= 0) return 0;
    const busy = this.busyNow(account);
    const allowed = this.share * this.tau;
    return busy > allowed ? this.tau * Math.log(busy / allowed) : 0;
  }

  /** A request of `key` starts; call the returned function once when it ends (answered or abandoned). */
  start(key: string): () => void {
    const account = this.accounts.get(key) ?? { busy: 0, at: this.now(), inFlight: 0 };
    account.busy = this.busyNow(account);
    account.at = this.now();
    account.inFlight++;
    this.inFlightTotal++;
    this.accounts.set(key, account);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      account.busy = this.busyNow(account);
      account.at = this.now();
      account.inFlight--;
      this.inFlightTotal--;
      this.forgetIdle();
    };
  }

  /** Principals known (the map is pruned of idle ones whose figure has decayed away). */
  get size(): number {
    return this.accounts.size;
  }

  /** The decayed busy time now: in flight since `at`, it rose towards TAU; idle, it fell towards 0. */
  private busyNow(account: Account): number {
    const decay = Math.exp(-(this.now() - account.at) / this.tau);
    return account.inFlight > 0 ? this.tau - (this.tau - account.busy) * decay : account.busy * decay;
  }

  /**
   * Idle principals whose figure is negligible are dropped, so a stream of new tokens or
   * addresses costs no memory; at most once a second, so that many principals at once do
   * not make every request's end a walk of them all.
   */
  private forgetIdle(): void {
    if (this.accounts.size < 64 || this.now() - this.prunedAt < 1000) return;
    this.prunedAt = this.now();
    for (const [key, account] of this.accounts) if (account.inFlight === 0 && this.busyNow(account) < 1) this.accounts.delete(key);
  }
}

/** The principal a request is accounted to: its caller (people and machines alike), else its address. */
function principalOf(request: FastifyRequest): string {
  return request.caller ? `actor:${request.caller.actor}` : `ip:${request.ip}`;
}

/**
 * Holds each request, after authentication, until its principal is within its share;
 * probes and /metrics are never held (but are someone else in flight). Installed after
 * installAuthentication, so that its onRequest hook runs after that one's. With
 * authentication off every request is the same caller's: nobody is held.
 */
export function installServerShare(app: FastifyInstance, share: number): ServerShare {
  const meter = new ServerShare(share);
  if (share >= 1) return meter;
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0]!;
    const key = principalOf(request);
    // Probes and scrapes are never held, but they count as someone waiting.
    const wait = isHealthPath(path) || path === '/metrics' ? 0 : meter.delayFor(key);
    if (wait > 0) {
      shareDelays.inc();
      shareDelaySeconds.inc(wait / 1000);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    // Gone already (while held, or before): its 'close' has passed, so it is not counted at all.
    if (reply.raw.closed || request.raw.socket?.destroyed) return;
    // 'close' comes once the answer is written or the client went away, whichever first.
    reply.raw.once('close', meter.start(key));
  });
  return meter;
}
