/**
 * Loads a YAML file into a small tree that keeps what validation needs and plain
 * `JSON`-like parsing loses: each node's line, and each scalar's source text (so
 * `version: 20240614080000` or `value: 1.50` keep their digits for string-typed
 * fields, while number-typed fields use the parsed number).
 */
import { readFileSync } from 'node:fs';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { CliError, EXIT } from '../errors.js';

interface NodeBase {
  /** 1-based line where the node starts. */
  readonly line: number;
}

export interface YamlScalar extends NodeBase {
  readonly kind: 'scalar';
  readonly value: string | number | boolean | null;
  /** The value as written: the string itself, or the source text of a number or boolean. */
  readonly text: string;
}

export interface YamlMapEntry {
  readonly key: string;
  readonly keyLine: number;
  readonly value: YamlNode;
}

export interface YamlMap extends NodeBase {
  readonly kind: 'map';
  readonly entries: readonly YamlMapEntry[];
}

export interface YamlSeq extends NodeBase {
  readonly kind: 'seq';
  readonly items: readonly YamlNode[];
}

export type YamlNode = YamlScalar | YamlMap | YamlSeq;

export interface YamlFile {
  /** The path as the user gave it, for messages. */
  readonly name: string;
  readonly root: YamlNode | undefined;
}

export function entryOf(map: YamlMap, key: string): YamlMapEntry | undefined {
  return map.entries.find((e) => e.key === key);
}

export function describeKind(node: YamlNode): string {
  if (node.kind === 'map') return 'a mapping';
  if (node.kind === 'seq') return 'a list';
  if (node.value === null) return 'empty';
  return `${typeof node.value} ${JSON.stringify(node.value)}`;
}

class TreeBuilder {
  constructor(
    private readonly source: string,
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
  ) {}

  private lineOf(node: Node | null | undefined): number {
    const offset = node?.range?.[0];
    return offset === undefined ? 1 : this.lines.linePos(offset).line;
  }

  build(node: unknown, depth = 0): YamlNode {
    // Aliases can nest into cycles; a sane definition file is never this deep.
    if (depth > 100) throw new CliError('YAML nesting is too deep', EXIT.usage);
    if (isAlias(node)) return this.build(node.resolve(this.doc), depth + 1);
    if (isMap(node)) {
      const entries: YamlMapEntry[] = [];
      for (const pair of node.items) {
        const keyNode = pair.key as Node | null;
        const key = isScalar(keyNode) ? this.scalarText(keyNode) : keyNode === null ? '' : String(keyNode);
        entries.push({
          key,
          keyLine: this.lineOf(keyNode),
          value: pair.value === null ? { kind: 'scalar', value: null, text: '', line: this.lineOf(keyNode) } : this.build(pair.value, depth + 1),
        });
      }
      return { kind: 'map', entries, line: this.lineOf(node) };
    }
    if (isSeq(node)) {
      return { kind: 'seq', items: node.items.map((item) => this.build(item, depth + 1)), line: this.lineOf(node as Node) };
    }
    if (isScalar(node)) {
      const value = node.value;
      const plain = value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : String(value);
      return { kind: 'scalar', value: plain, text: this.scalarText(node), line: this.lineOf(node) };
    }
    return { kind: 'scalar', value: null, text: '', line: this.lineOf(node as Node) };
  }

  private scalarText(node: { value: unknown; range?: readonly number[] | null }): string {
    if (typeof node.value === 'string') return node.value;
    if (node.value === null) return '';
    const range = node.range;
    return range ? this.source.slice(range[0], range[1]).trim() : String(node.value);
  }
}

/** Parses YAML text; syntax errors become one CliError listing each with its position. */
export function parseYaml(name: string, source: string): YamlFile {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const messages = doc.errors.map((e) => {
      const pos = lines.linePos(e.pos[0]);
      return `${name}:${pos.line}:${pos.col}: invalid YAML: ${e.message.split('\n')[0]}`;
    });
    const n = messages.length;
    throw new CliError(`${messages.join('\n')}\n${n} error${n === 1 ? '' : 's'} in ${name}; nothing was written.`, EXIT.usage);
  }
  const root = doc.contents === null ? undefined : new TreeBuilder(source, doc, lines).build(doc.contents);
  return { name, root };
}

export function loadYamlFile(file: string): YamlFile {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message;
    throw new CliError(`Cannot read ${file}: ${reason}`, EXIT.usage);
  }
  return parseYaml(file, source);
}
