/** Suggestions for misspelt names: the known word a typo most likely meant. */

/** Edit distance (insertions, deletions, substitutions, adjacent swaps). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The known word a typo most likely meant, if any is close enough to be a typo (case ignored). */
export function closestWord(word: string, known: readonly string[]): string | undefined {
  // Long inputs are not typos of short names, and the distance table grows with both lengths.
  if (word.length > 100) return undefined;
  const lower = word.toLowerCase();
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (!best || distance < best.distance) best = { word: candidate, distance };
  }
  if (!best) return undefined;
  const tolerance = Math.max(1, Math.min(3, Math.floor(best.word.length / 3)));
  return best.distance <= tolerance ? best.word : undefined;
}
