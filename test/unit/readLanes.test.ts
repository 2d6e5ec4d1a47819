/**
 * Heavy reads in lanes (services/readLanes.ts, issue #46 item 2): a caller's reads one at
 * a time in the order asked, callers side by side up to the lanes, and a failed read
 * neither blocks the next nor takes a lane with it.
 */
import { ReadLanes } from '../../src/services/readLanes.js';

/** A read that runs until `finish` is called, recording when it started. */
function gated(log: string[], name: string) {
  let finish!: (value: string) => void;
  let fail!: (err: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return {
    read: () => {
      log.push(name);
      return done;
    },
    finish: () => finish(name),
    fail: (message: string) => fail(new Error(message)),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ReadLanes', () => {
  test("a caller's reads run one at a time, in the order asked", async () => {
    const lanes = new ReadLanes(5);
    const started: string[] = [];
    const reads = ['a1', 'a2', 'a3'].map((n) => gated(started, n));
    const answers = reads.map((r) => lanes.run('ana', r.read));
    await settle();
    expect(started).toEqual(['a1']);
    reads[0]!.finish();
    await settle();
    expect(started).toEqual(['a1', 'a2']);
    reads[1]!.finish();
    reads[2]!.finish();
    expect(await Promise.all(answers)).toEqual(['a1', 'a2', 'a3']);
  });

  test('callers run side by side up to the lanes; the next waits for a free lane', async () => {
    const lanes = new ReadLanes(2);
    const started: string[] = [];
    const [ana, bo, cy] = ['ana', 'bo', 'cy'].map((n) => gated(started, n));
    const answers = [lanes.run('ana', ana!.read), lanes.run('bo', bo!.read), lanes.run('cy', cy!.read)];
    await settle();
    expect(started).toEqual(['ana', 'bo']);
    expect(lanes.load).toEqual({ running: 2, waiting: 1 });
    bo!.finish();
    await settle();
    expect(started).toEqual(['ana', 'bo', 'cy']);
    expect(lanes.load).toEqual({ running: 2, waiting: 0 });
    ana!.finish();
    cy!.finish();
    expect(await Promise.all(answers)).toEqual(['ana', 'bo', 'cy']);
    expect(lanes.load).toEqual({ running: 0, waiting: 0 });
  });

  test('a failed read answers its caller with the failure, and the next read runs', async () => {
    const lanes = new ReadLanes(1);
    const started: string[] = [];
    const [first, second] = ['first', 'second'].map((n) => gated(started, n));
    const failed = lanes.run('ana', first!.read);
    const next = lanes.run('ana', second!.read);
    first!.fail('the database went away');
    await expect(failed).rejects.toThrow('the database went away');
    second!.finish();
    await expect(next).resolves.toBe('second');
    expect(lanes.load).toEqual({ running: 0, waiting: 0 });
  });

  test('lanes must be a whole number of at least one', () => {
    expect(() => new ReadLanes(0)).toThrow('lanes must be a whole number >= 1, got 0');
  });
});
