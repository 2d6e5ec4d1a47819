import { backoffMs, WakeableSleep } from '../../src/platform/time.js';

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
