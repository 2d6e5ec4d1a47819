/**
 * Suggestions for misspelt names: the known word a typo most likely meant. One edit
 * distance serves every "did you mean" (types, fields, fabric types, search fields);
 * docs/decisions.md ("Hand-written or a library") says why it is not a package's.
 */

/**
 * Edit distance (insertions, deletions, substitutions, adjacent swaps), case as given.
 * With `limit`, gives up once the distance cannot be below it and returns `limit`: a
 * search among thousands of names stops early on those already too far.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  // What both share at either end costs nothing: names of one family differ in a few characters.
  let start = 0;
  while (start < a.length && start < b.length && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  const n = endA - start;
  const m = endB - start;
  if (Math.abs(n - m) >= limit) return limit;
  if (n === 0 || m === 0) return Math.max(n, m);
  // Three rows of the table: the one two back is needed for a swap.
  let before = new Int32Array(m + 1);
  let previous = new Int32Array(m + 1);
  let current = new Int32Array(m + 1);
  for (let j = 0; j <= m; j++) previous[j] = j;
  for (let i = 1; i <= n; i++) {
    const ca = a.charCodeAt(start + i - 1);
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= m; j++) {
      const cb = b.charCodeAt(start + j - 1);
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (ca === cb ? 0 : 1));
      if (i > 1 && j > 1 && ca === b.charCodeAt(start + j - 2) && a.charCodeAt(start + i - 2) === cb) d = Math.min(d, before[j - 2]! + 1);
      current[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin >= limit) return limit;
    [before, previous, current] = [previous, current, before];
  }
  return previous[m]!;
}

/** The known word a typo most likely meant, if any is close enough to be a typo (case ignored). */
export function closestWord(word: string, known: readonly string[]): string | undefined {
  // Long inputs are not typos of short names, and the distance table grows with both lengths.
  if (word.length > 100) return undefined;
  const best = nearest(word, known);
  if (!best) return undefined;
  const tolerance = Math.max(1, Math.min(3, Math.floor(best.word.length / 3)));
  return best.distance <= tolerance ? best.word : undefined;
}

/**
 * The name among `candidates` closest to `name` however far (case ignored, ties to the
 * first), for "did you mean" messages that always name one; undefined when there are none.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  return nearest(name, candidates)?.word;
}

function nearest(word: string, candidates: Iterable<string>): { word: string; distance: number } | undefined {
  const lower = word.toLowerCase();
  let best: { word: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase(), best?.distance ?? Infinity);
    if (!best || distance < best.distance) best = { word: candidate, distance };
  }
  return best;
}
