import { backoffMs, TurnTaker, WakeableSleep } from '../../src/time.js';

describe('backoffMs', () => {
  test('doubles from the base after each failure and stops at the cap', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((failures) => backoffMs(failures, { baseMs: 100, maxMs: 1000 }));
    expect(delays).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  test('with jitter, each delay stays within ±25% of the plain one', () => {
    for (let i = 0; i < 100; i++) {
      const delay = backoffMs(3, { baseMs: 100, maxMs: 1000, jitter: true });
      expect(delay).toBeGreaterThanOrEqual(300);
      expect(delay).toBeLessThanOrEqual(500);
    }
  });
});

describe('WakeableSleep', () => {
  test('wake() ends a sleep at once', async () => {
    const pause = new WakeableSleep();
    const slept = pause.sleep(60_000);
    pause.wake();
    await expect(slept).resolves.toBeUndefined();
  });

  test('a wake while nobody sleeps ends the next sleep at once, and only that one', async () => {
    const pause = new WakeableSleep();
    pause.wake();
    await pause.sleep(60_000);
    let ended = false;
    const next = pause.sleep(60_000).then(() => (ended = true));
    await Promise.resolve();
    expect(ended).toBe(false);
    pause.wake();
    await next;
    expect(ended).toBe(true);
  });
});

describe('TurnTaker', () => {
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };

  test('within its budget a turn keeps going; past it, what waits on the event loop runs first', async () => {
    const turns = new TurnTaker(20);
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    await turns.turn();
    expect(ran).toBe(false);
    busy(25);
    await turns.turn();
    expect(ran).toBe(true);
  });

  test('a loop of many short steps gives the event loop a turn at least once per budget', async () => {
    const turns = new TurnTaker(5);
    let ticks = 0;
    const tick = () => {
      ticks++;
      timer = setImmediate(tick);
    };
    let timer = setImmediate(tick);
    const started = performance.now();
    for (let i = 0; i < 60; i++) {
      busy(1);
      await turns.turn();
    }
    clearImmediate(timer);
    // 60 ms of work in 5 ms slices: the waiting callback ran about every slice (not once at the end).
    expect(ticks).toBeGreaterThanOrEqual(Math.floor((performance.now() - started) / 5 / 2));
  });
});
