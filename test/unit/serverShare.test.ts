/**
 * Each principal's share of the server (rest/serverShare.ts, issue #46): a principal that
 * keeps the server busy past its share is held while someone else has a request in
 * flight, and only then; held as told, a closed loop settles at its share whatever the
 * length of its requests; idle principals are forgotten.
 */
import { loadConfig } from '../../src/platform/config.js';
import { ServerShare } from '../../src/rest/serverShare.js';

const TAU = 5000;

/** A meter on a clock the test moves. */
function meter(share: number) {
  let t = 0;
  const m = new ServerShare(share, () => t, TAU);
  return { m, advance: (ms: number) => (t += ms), now: () => t };
}

/**
 * `key` in a closed loop of requests lasting `requestMs` for `forMs`, each held as the
 * meter says, while `other` keeps a request in flight (unless `alone`). Returns the
 * share of the time it had a request in flight over the last half of the run.
 */
function closedLoop(share: number, requestMs: number, forMs: number, alone = false): number {
  const { m, advance, now } = meter(share);
  const endOther = alone ? undefined : m.start('other');
  let busyLate = 0;
  while (now() < forMs) {
    const wait = m.delayFor('heavy');
    advance(wait);
    const end = m.start('heavy');
    advance(requestMs);
    end();
    if (now() > forMs / 2) busyLate += requestMs;
  }
  endOther?.();
  return busyLate / (forMs / 2);
}

describe('ServerShare', () => {
  test('a lone principal is never held, however busy', () => {
    expect(closedLoop(0.5, 100, 60_000, true)).toBe(1);
  });

  test('beside another principal in flight, a closed loop settles at its share, short requests or long', () => {
    for (const requestMs of [5, 100, 1000]) {
      const duty = closedLoop(0.5, requestMs, 120_000);
      expect(duty).toBeGreaterThan(0.45);
      expect(duty).toBeLessThan(0.58);
    }
    expect(closedLoop(0.25, 100, 120_000)).toBeLessThan(0.3);
  });

  test('a principal within its share is not held; one past it is held just long enough to be back within it', () => {
    const { m, advance } = meter(0.5);
    const endOther = m.start('other');
    // 1 s in flight from nothing: about 0.18 x TAU, well within half.
    let end = m.start('p');
    advance(1000);
    end();
    expect(m.delayFor('p')).toBe(0);
    // 10 s more in flight: about 0.88 x TAU.
    end = m.start('p');
    advance(10_000);
    end();
    const wait = m.delayFor('p');
    expect(wait).toBeGreaterThan(2000);
    expect(wait).toBeLessThan(TAU * Math.log(2) + 1);
    advance(wait);
    expect(m.delayFor('p')).toBeLessThan(1);
    endOther();
  });

  test('at the default share, 0.4, a principal in flight all the time is held at most TAU x ln(1 / 0.4), 4.6 s', () => {
    expect(loadConfig({}).principalShare).toBe(0.4);
    const { m, advance } = meter(0.4);
    const endOther = m.start('other');
    const end = m.start('p');
    advance(TAU * 20);
    end();
    const wait = m.delayFor('p');
    expect(wait).toBeGreaterThan(4500);
    expect(wait).toBeLessThanOrEqual(TAU * Math.log(1 / 0.4) + 1);
    endOther();
  });

  test('nobody else in flight: not held, even past the share', () => {
    const { m, advance } = meter(0.5);
    const end = m.start('p');
    advance(20_000);
    end();
    expect(m.delayFor('p')).toBe(0);
    // The other principal's request in flight counts; ended, it no longer does.
    const endOther = m.start('other');
    expect(m.delayFor('p')).toBeGreaterThan(0);
    endOther();
    expect(m.delayFor('p')).toBe(0);
  });

  test("two requests of one principal at once are its time once, not twice; an end called twice counts once", () => {
    const { m, advance } = meter(0.5);
    const endOther = m.start('other');
    const a = m.start('p');
    const b = m.start('p');
    advance(TAU * 10);
    a();
    a();
    b();
    // In flight all the time: the figure tends to TAU, never past it.
    expect(m.delayFor('p')).toBeCloseTo(TAU * Math.log(2), 0);
    endOther();
  });

  test('share 1 never holds anyone', () => {
    expect(closedLoop(1, 100, 60_000)).toBe(1);
  });

  test('idle principals are forgotten: a stream of new ones costs no memory', () => {
    const { m, advance } = meter(0.5);
    for (let i = 0; i < 10_000; i++) {
      const end = m.start(`ip:${i}`);
      advance(1);
      end();
      advance(TAU);
    }
    expect(m.size).toBeLessThan(100);
  });
});
