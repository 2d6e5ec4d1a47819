/**
 * A read shared by the callers of one pass of the event loop (src/platform/sharedRead.ts):
 * fewer reads, and never a value read before a caller asked.
 */
import { sharedRead } from '../../src/platform/sharedRead.js';

/** A read whose answers the test gives: each call is recorded with the order it was sent in. */
function controlledRead() {
  const sent: Array<{ resolve: (v: number) => void; reject: (e: Error) => void }> = [];
  const read = () => new Promise<number>((resolve, reject) => sent.push({ resolve, reject }));
  return { read, sent };
}

const nextPass = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('sharedRead', () => {
  test('callers asking in one pass share one read, sent after the last of them asked', async () => {
    const { read, sent } = controlledRead();
    const shared = sharedRead(read);
    const answers = [shared(), shared(), shared()];
    // Nothing is sent while the pass may still bring callers.
    expect(sent).toHaveLength(0);
    await nextPass();
    expect(sent).toHaveLength(1);
    sent[0]!.resolve(7);
    await expect(Promise.all(answers)).resolves.toEqual([7, 7, 7]);
  });

  test('a caller asking while a read is under way does not join it: it gets a read sent after it asked', async () => {
    const { read, sent } = controlledRead();
    const shared = sharedRead(read);
    const first = shared();
    await nextPass();
    expect(sent).toHaveLength(1);
    // The counter moves after the first read left; the caller asking now must see the move.
    const second = shared();
    await nextPass();
    expect(sent).toHaveLength(2);
    sent[0]!.resolve(1);
    sent[1]!.resolve(2);
    await expect(first).resolves.toBe(1);
    await expect(second).resolves.toBe(2);
  });

  test('a failed read fails its callers only; the next caller reads again', async () => {
    const { read, sent } = controlledRead();
    const shared = sharedRead(read);
    const a = shared();
    const b = shared();
    await nextPass();
    sent[0]!.reject(new Error('connection lost'));
    await expect(a).rejects.toThrow('connection lost');
    await expect(b).rejects.toThrow('connection lost');
    const c = shared();
    await nextPass();
    expect(sent).toHaveLength(2);
    sent[1]!.resolve(3);
    await expect(c).resolves.toBe(3);
  });
});
