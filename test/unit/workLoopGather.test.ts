/**
 * A work loop that gathers (services/consumerLoop.ts; the metadata-test evaluator does):
 * after a step that handled less than a full batch, changes arriving in the next moment
 * share one step, whatever nudges they bring; a full batch is followed at once, and a
 * stop does not wait out the gathering.
 */
import { createLogger } from '../../src/platform/logger.js';
import { WorkLoop, type Gather } from '../../src/services/consumerLoop.js';
import { sleep, waitFor } from '../support/waitFor.js';

/** A loop over an in-memory queue: each step takes up to `batch` items and records how many. */
class QueueLoop extends WorkLoop {
  readonly queue: number[] = [];
  readonly steps: number[] = [];

  constructor(
    gather: Gather | undefined,
    private readonly batch: number,
  ) {
    // The poll is long: only nudges (and the gathering's end) start a step.
    super({ log: createLogger('silent'), name: 'queue', pollMs: 600_000, gather });
  }

  add(n: number): void {
    for (let i = 0; i < n; i++) {
      this.queue.push(i);
      this.nudge();
    }
  }

  protected async step(): Promise<number> {
    const taken = this.queue.splice(0, this.batch).length;
    if (taken > 0) this.steps.push(taken);
    return taken;
  }

  protected failed(): void {}
}

const handled = (loop: QueueLoop) => loop.steps.reduce((a, b) => a + b, 0);

test('changes that arrive while the loop gathers share one step; their nudges do not cut it short', async () => {
  const loop = new QueueLoop({ ms: 2_000, fewerThan: 100 }, 100);
  loop.start();
  try {
    loop.add(1);
    await waitFor('the first change to be handled at once', 30_000, async () => (loop.steps.length === 1 ? true : undefined), 5);
    // Five changes, one every 20 ms, each with its nudge, while the loop gathers after that step.
    for (let i = 0; i < 5; i++) {
      loop.add(1);
      await sleep(20);
    }
    await waitFor('the five to be handled', 30_000, async () => (handled(loop) === 6 ? true : undefined), 5);
    expect(loop.steps).toEqual([1, 5]);
  } finally {
    await loop.stop();
  }
});

test('without gathering, each nudge is a step of its own', async () => {
  const loop = new QueueLoop(undefined, 100);
  loop.start();
  try {
    for (let i = 0; i < 5; i++) {
      loop.add(1);
      await waitFor(`change ${i + 1} to be handled`, 30_000, async () => (handled(loop) === i + 1 ? true : undefined), 5);
    }
    expect(loop.steps).toEqual([1, 1, 1, 1, 1]);
  } finally {
    await loop.stop();
  }
});

test('a full batch is followed at once, and a stop ends the gathering after the last', async () => {
  // A minute's gathering: were full batches followed by it, twelve items would take two.
  const loop = new QueueLoop({ ms: 60_000, fewerThan: 5 }, 5);
  loop.start();
  loop.add(12);
  await waitFor('the backlog to be handled', 30_000, async () => (handled(loop) === 12 ? true : undefined), 5);
  expect(loop.steps).toEqual([5, 5, 2]);
  // The last step was short: the loop now gathers for a minute, and the stop cuts it short.
  await sleep(50);
  const stopping = Date.now();
  await loop.stop();
  expect(Date.now() - stopping).toBeLessThan(30_000);
});
