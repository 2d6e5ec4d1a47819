/**
 * Validation problems of one YAML file, collected all at once so a user fixes them
 * in one go. Each names the file and line, the entry (1-based index and id), the
 * field and the reason. Problems found by the schemas and the domain's rules arrive
 * with paths; their lines come from the file.
 */
import { findInputViolation, type PathSegment } from '../../domain/inputLimits.js';
import type { Problem } from '../../domain/shapes/shape.js';
import { CliError, EXIT } from '../errors.js';
import type { YamlFile } from './yamlFile.js';

export interface EntryRef {
  /** 1-based position of the entry in the file's list. */
  readonly index: number;
  readonly id?: string;
}

export function describeEntry(entry: EntryRef): string {
  return entry.id !== undefined ? `entry ${entry.index} (id: ${entry.id})` : `entry ${entry.index}`;
}

/** A value of the file as messages name it. */
export function describeYaml(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null || value === undefined) return 'empty';
  if (typeof value === 'object') return 'a mapping';
  return JSON.stringify(value);
}

/** A path as the file's messages write it: keys joined by dots (a property name keeps its own dots), indexes in brackets. */
export function yamlPath(path: readonly PathSegment[]): string {
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

export class FileProblems {
  private readonly messages: Array<{ line: number; text: string }> = [];

  constructor(readonly file: string) {}

  add(line: number, entry: EntryRef | undefined, field: string | undefined, reason: string): void {
    const where = [entry ? describeEntry(entry) : undefined, field].filter((x) => x !== undefined && x !== '').join(': ');
    this.messages.push({ line, text: `${this.file}:${line}: ${where ? `${where}: ` : ''}${reason}` });
  }

  /** Problems of one entry, with paths inside it (`entryPath` is where the entry is in the file). */
  addAll(file: YamlFile, entryPath: readonly PathSegment[], entry: EntryRef | undefined, problems: readonly Problem[]): void {
    for (const p of problems) this.add(file.lineOf([...entryPath, ...p.path]), entry, yamlPath(p.path), p.reason);
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

/**
 * The entries of a file: a list of mappings (a single mapping counts as a one-entry
 * list). The file's input limits (docs/contract.md §12) are checked first; entries that are not
 * mappings are reported and skipped.
 */
export function fileEntries(file: YamlFile, problems: FileProblems, what: string): Array<{ index: number; path: PathSegment[]; value: Record<string, unknown> }> {
  const root = file.value;
  const violation = findInputViolation(root);
  if (violation) {
    const [first, ...rest] = violation.path;
    const inEntry = Array.isArray(root) && typeof first === 'number';
    problems.add(file.lineOf(violation.path), inEntry ? { index: first + 1 } : undefined, yamlPath(inEntry ? rest : violation.path), violation.reason);
    return [];
  }
  if (root === undefined || root === null) {
    problems.add(1, undefined, undefined, `the file is empty; expected a list of ${what}`);
    return [];
  }
  if (typeof root !== 'object') {
    problems.add(1, undefined, undefined, `expected a list of ${what}, not ${describeYaml(root)}`);
    return [];
  }
  const single = !Array.isArray(root);
  const items: unknown[] = single ? [root] : root;
  if (items.length === 0) problems.add(1, undefined, undefined, `the list is empty; expected at least one of the ${what}`);
  const out: Array<{ index: number; path: PathSegment[]; value: Record<string, unknown> }> = [];
  items.forEach((item, i) => {
    const path = single ? [] : [i];
    if (item && typeof item === 'object' && !Array.isArray(item)) out.push({ index: i + 1, path, value: item as Record<string, unknown> });
    else problems.add(file.lineOf(path), { index: i + 1 }, undefined, `must be a mapping of keys to values, not ${describeYaml(item)}`);
  });
  return out;
}
