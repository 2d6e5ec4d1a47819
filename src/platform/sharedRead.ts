/**
 * A read that callers asking in the same pass of the event loop share, none of them
 * getting a value read before it asked: the read is sent at the end of the pass in which
 * the first of them asked (platform/turns.ts, `endOfPass`), and a read already sent is
 * never joined, since it may have left before a change the later caller must see.
 *
 * For a counter every request reads (the policies' change counter): 32 clients writing at
 * once were one PostgreSQL round trip per write, each a socket write and a wake-up of a
 * backend on a machine whose writes are CPU-bound (BENCHMARKS.md, "Group commit: writes
 * before and after").
 */
import { endOfPass } from './turns.js';

export function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let next: Promise<T> | null = null;
  return () =>
    (next ??= endOfPass().then(() => {
      next = null;
      return read();
    }));
}
