/**
 * Turns of the event loop shared by every long piece of work of the process: the
 * completion of a GraphQL list of 10,000 hits, the JSON of its answer. Each such piece
 * asks `loopTurn()` between small steps. While the current slice of work is shorter
 * than SLICE_MS it goes on; past it, the piece waits in one queue with every other
 * piece that ran out, and each pass of the event loop resumes only the first of them,
 * after Node has read its sockets and timers. So a /health probe waits at most one
 * slice, however many large requests are under way, whereas turns each piece takes on
 * its own (time.ts's TurnTaker) all run in the same pass, one after the other: four
 * clients asking for ten lists of 1,000 hits each held the event loop for tens of
 * milliseconds at a time (BENCHMARKS.md, "Under attack").
 */

/** How long one slice of work may run before what waits on the event loop goes first. */
export const SLICE_MS = 2;

/** Lists from this length on are completed in turns (shorter ones take well under a slice). */
export const LONG_LIST = 100;

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

/**
 * A long list as items that settle in turns, for GraphQL to complete as they settle
 * (graphql-js completes a promised item once it resolves, and the others meanwhile):
 * each item waits for `loopTurn()` after the one before it. A short list is returned as
 * it is. An item that is itself a promise settles as it would have.
 */
export function itemsInTurns<T>(items: readonly T[]): ReadonlyArray<T | Promise<T>> {
  if (items.length < LONG_LIST) return items;
  // The turns are a chain of their own: a failed item fails its place only, not those after it.
  let turn: Promise<unknown> = Promise.resolve();
  return items.map((item) => {
    // Until the list gets to it, a failed item's own rejection must not count as unhandled (Node ends the process on one).
    if (typeof (item as PromiseLike<unknown> | null)?.then === 'function') (item as PromiseLike<unknown>).then(undefined, () => undefined);
    turn = turn.then(loopTurn);
    return turn.then(() => item) as Promise<T>;
  });
}
