/**
 * The one scheduler of the process: how every long piece of work (a write batch's
 * decisions and statement, the indexer's documents, a GraphQL list of 1,000 hits, the
 * JSON of a large answer, a large request body's steps, a test evaluation) lets the
 * event loop run what waits on it (a /health probe, a small search). No other module
 * yields the event loop on its own: test/unit/turns.test.ts bans raw `setImmediate` and
 * private yielders elsewhere.
 *
 * Work runs in slices of SLICE_MS. A slice begins at the first ask of a pass of the
 * event loop (or when the queue below resumes a piece) and is shared by every piece that
 * runs in that pass: two batches and the indexer resumed by the same reads of their
 * sockets spend one slice between them, not one each. Past the slice, a piece waits in
 * one queue with every other piece that ran out, and each pass of the event loop resumes
 * only the first of them, after Node has read its sockets and timers. So a /health probe
 * waits for one slice, however many large requests are under way, whereas turns each
 * piece took on its own all ran in the same pass, one after the other (BENCHMARKS.md,
 * "Profiles": issue #29's four clients).
 */

/**
 * How long one slice of work may run before what waits on the event loop goes first: a
 * shorter slice gave /health a lower tail and fewer long stalls (BENCHMARKS.md, "Figures
 * that explained code choices").
 */
export const SLICE_MS = 2;

/** When the current slice began. */
let sliceStart = 0;
/** Whether a slice is open in this pass; closed in the pass's check phase, so the next pass's first ask opens a fresh one. */
let sliceOpen = false;
const waiting: Array<() => void> = [];
let scheduled = false;

function closeSlice(): void {
  sliceOpen = false;
}

function openSlice(now: number): void {
  sliceStart = now;
  if (sliceOpen) return;
  sliceOpen = true;
  setImmediate(closeSlice);
}

/** One pass of the event loop: a fresh slice for the first piece waiting; the next is resumed a pass later. */
function resumeNext(): void {
  scheduled = false;
  const next = waiting.shift();
  openSlice(performance.now());
  // Scheduled from within a setImmediate callback, this runs in the next pass, after its I/O.
  if (waiting.length > 0) schedule();
  next?.();
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(resumeNext);
}

/** Runs `resume` at its turn in the queue: after what waits on the event loop, and after the pieces queued before it. */
export function afterTurn(resume: () => void): void {
  waiting.push(resume);
  schedule();
}

/** A promise that settles at this piece's turn in the queue, whatever is left of the slice. */
export function nextTurn(): Promise<void> {
  return new Promise<void>(afterTurn);
}

/**
 * Undefined while the current slice has time left (go on at once, without a promise);
 * otherwise a promise that settles at this piece's turn. A loop calls it between small
 * steps: `const wait = loopTurn(); if (wait) await wait;`, or `await loopTurn()` where a
 * microtask per step does not matter.
 */
export function loopTurn(): Promise<void> | undefined {
  const now = performance.now();
  if (!sliceOpen) {
    openSlice(now);
    return undefined;
  }
  if (now - sliceStart < SLICE_MS) return undefined;
  return nextTurn();
}

/** `value`, once the current slice allows: at once (no promise) while it has time left, else at this piece's turn. */
export function inTurn<T>(value: T): T | Promise<T> {
  const wait = loopTurn();
  return wait ? wait.then(() => value) : value;
}

/**
 * Settles in the check phase of this pass, after the I/O callbacks it ran: not a turn
 * (it waits for no slice and no queue), but the point where what one pass asked can be
 * gathered into one question (the index wait's change-log check: every write a batch
 * woke asks together).
 */
export function endOfPass(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
