/**
 * Validation problems of one YAML file, collected all at once so a user fixes them
 * in one go. Each names the file and line, the entry (1-based index and id), the
 * field and the reason.
 */
import { CliError, EXIT } from '../errors.js';
import type { YamlMap } from './yamlTree.js';

export interface EntryRef {
  /** 1-based position of the entry in the file's list. */
  readonly index: number;
  readonly id?: string;
}

export function describeEntry(entry: EntryRef): string {
  return entry.id !== undefined ? `entry ${entry.index} (id: ${entry.id})` : `entry ${entry.index}`;
}

export class FileProblems {
  private readonly messages: Array<{ line: number; text: string }> = [];

  constructor(readonly file: string) {}

  add(line: number, entry: EntryRef | undefined, field: string | undefined, reason: string): void {
    const where = [entry ? describeEntry(entry) : undefined, field].filter((x) => x !== undefined).join(': ');
    this.messages.push({ line, text: `${this.file}:${line}: ${where ? `${where}: ` : ''}${reason}` });
  }

  get count(): number {
    return this.messages.length;
  }

  /** Ends the command when anything was found: exit code 2, nothing written. */
  throwIfAny(): void {
    if (this.messages.length === 0) return;
    const n = this.messages.length;
    // In file order, whatever order the checks ran in (the sort is stable).
    const text = [...this.messages].sort((a, b) => a.line - b.line).map((m) => m.text);
    throw new CliError(`${text.join('\n')}\n${n} error${n === 1 ? '' : 's'} in ${this.file}; nothing was written.`, EXIT.usage);
  }
}

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

/** The known word a typo most likely meant, if any is close enough to be a typo. */
export function closestWord(word: string, known: readonly string[]): string | undefined {
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

/** Reports every key of `map` that is not in `known`, suggesting the nearest known key. */
export function checkKeys(map: YamlMap, known: readonly string[], problems: FileProblems, entry: EntryRef | undefined, prefix = ''): void {
  for (const { key, keyLine } of map.entries) {
    if (known.includes(key)) continue;
    const suggestion = closestWord(key, known);
    problems.add(
      keyLine,
      entry,
      `${prefix}${key}`,
      suggestion ? `unknown key; did you mean '${suggestion}'?` : `unknown key; expected one of ${known.join(', ')}`,
    );
  }
}
