/**
 * Reads the fields of one YAML entry, reporting each problem against the entry and
 * the field instead of stopping at the first.
 */
import { describeKind, entryOf, type YamlFile, type YamlMap, type YamlNode, type YamlScalar, type YamlSeq } from './yamlTree.js';
import type { EntryRef, FileProblems } from './fileProblems.js';

export class FieldReader {
  constructor(
    readonly problems: FileProblems,
    public entry: EntryRef,
  ) {}

  fail(line: number, field: string, reason: string): undefined {
    this.problems.add(line, this.entry, field, reason);
    return undefined;
  }

  /** A scalar's text (numbers and booleans as written); undefined when absent or empty. */
  text(map: YamlMap, key: string, field = key, options: { required?: boolean } = {}): { text: string; line: number } | undefined {
    const found = entryOf(map, key);
    if (!found || (found.value.kind === 'scalar' && found.value.value === null)) {
      if (options.required) this.fail(found?.keyLine ?? map.line, field, 'is required');
      return undefined;
    }
    return this.scalarText(found.value, field);
  }

  scalarText(node: YamlNode, field: string): { text: string; line: number } | undefined {
    if (node.kind !== 'scalar') return this.fail(node.line, field, `must be a single value, not ${describeKind(node)}`);
    if (node.value === null) return this.fail(node.line, field, 'must not be empty');
    return { text: node.text, line: node.line };
  }

  scalar(node: YamlNode, field: string): YamlScalar | undefined {
    if (node.kind !== 'scalar') return this.fail(node.line, field, `must be a plain value, not ${describeKind(node)}`);
    if (node.value === null) return this.fail(node.line, field, 'must not be empty');
    return node;
  }

  boolean(map: YamlMap, key: string, field = key): boolean | undefined {
    const found = entryOf(map, key);
    if (!found || (found.value.kind === 'scalar' && found.value.value === null)) return undefined;
    if (found.value.kind !== 'scalar' || typeof found.value.value !== 'boolean') {
      return this.fail(found.value.line, field, `must be true or false, not ${describeKind(found.value)}`);
    }
    return found.value.value;
  }

  list(map: YamlMap, key: string, field = key): YamlSeq | undefined {
    const found = entryOf(map, key);
    if (!found || (found.value.kind === 'scalar' && found.value.value === null)) return undefined;
    if (found.value.kind !== 'seq') return this.fail(found.value.line, field, `must be a list, not ${describeKind(found.value)}`);
    return found.value;
  }

  map(map: YamlMap, key: string, field = key): YamlMap | undefined {
    const found = entryOf(map, key);
    if (!found || (found.value.kind === 'scalar' && found.value.value === null)) return undefined;
    if (found.value.kind !== 'map') return this.fail(found.value.line, field, `must be a mapping, not ${describeKind(found.value)}`);
    return found.value;
  }
}

/**
 * The entries of a definition file: a list of mappings (a single mapping counts as a
 * one-entry list). Non-mapping entries are reported and skipped.
 */
export function fileEntries(file: YamlFile, problems: FileProblems, what: string): Array<{ index: number; map: YamlMap }> {
  const root = file.root;
  if (!root) {
    problems.add(1, undefined, undefined, `the file is empty; expected a list of ${what}`);
    return [];
  }
  const items = root.kind === 'seq' ? root.items : root.kind === 'map' ? [root] : [];
  if (root.kind === 'scalar') {
    problems.add(root.line, undefined, undefined, `expected a list of ${what}, not ${describeKind(root)}`);
    return [];
  }
  if (items.length === 0) problems.add(root.line, undefined, undefined, `the list is empty; expected at least one of the ${what}`);
  const out: Array<{ index: number; map: YamlMap }> = [];
  items.forEach((item, i) => {
    if (item.kind === 'map') out.push({ index: i + 1, map: item });
    else problems.add(item.line, { index: i + 1 }, undefined, `must be a mapping of keys to values, not ${describeKind(item)}`);
  });
  return out;
}
