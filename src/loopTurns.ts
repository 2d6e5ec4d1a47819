/**
 * Turns of the event loop shared by every long piece of work of the process: the
 * completion of a GraphQL list of 1,000 hits, the JSON of an answer of 10,000, the
 * chunks of a write trace's answer. Each such piece asks `loopTurn()` between small
 * steps. While the current slice of work is shorter than SLICE_MS it goes on; past it,
 * the piece waits in one queue with every other piece that ran out, and each pass of
 * the event loop resumes only the first of them, after Node has read its sockets and
 * timers. So a /health probe waits for one slice, however many large requests are under
 * way, whereas turns each piece takes on its own (time.ts's TurnTaker) all run in the
 * same pass, one after the other (BENCHMARKS.md, "Profiles": issue #29's four clients).
 */

/** How long one slice of work may run before what waits on the event loop goes first. */
export const SLICE_MS = 2;

/** When the current slice began: when the queue last resumed a piece. */
let sliceStart = performance.now();
const waiting: Array<() => void> = [];
let scheduled = false;

/** One pass of the event loop: a fresh slice for the first piece waiting; the next is resumed a pass later. */
function resumeNext(): void {
  scheduled = false;
  const next = waiting.shift();
  sliceStart = performance.now();
  // Scheduled from within a setImmediate callback, this runs in the next pass, after its I/O.
  if (waiting.length > 0) schedule();
  next?.();
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(resumeNext);
}

/**
 * Undefined while the current slice has time left (go on at once, without a promise);
 * otherwise a promise that settles when this piece's turn comes.
 */
export function loopTurn(): Promise<void> | undefined {
  if (performance.now() - sliceStart < SLICE_MS) return undefined;
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    schedule();
  });
}

/** `value`, once the current slice allows: at once (no promise) while it has time left, else at this piece's turn. */
export function inTurn<T>(value: T): T | Promise<T> {
  const wait = loopTurn();
  return wait ? wait.then(() => value) : value;
}
