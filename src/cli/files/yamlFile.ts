/**
 * Loads a YAML file as plain data for the file schemas, keeping what validation needs
 * and plain parsing loses. Scalars stay the text as written (YAML's failsafe schema),
 * so `version: 20240614080000` and `value: 1.50` keep their digits and the property's
 * definition, not YAML, decides whether `30` is a number; an empty plain scalar (or
 * `~`, `null`) is null, i.e. absent. `lineOf` maps a path back to its line.
 */
import { readFileSync } from 'node:fs';
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { INPUT_LIMITS, type PathSegment } from '../../domain/inputLimits.js';
import { CliError, EXIT } from '../errors.js';

export interface YamlFile {
  /** The path as the user gave it, for messages. */
  readonly name: string;
  /** Mappings as objects, sequences as arrays, scalars as their text; undefined for an empty file. */
  readonly value: unknown;
  /**
   * The 1-based line of the node at `path`: of its key when the path ends at a key of a
   * mapping, else of the value; the nearest existing parent's line when it does not exist.
   */
  lineOf(path: readonly PathSegment[]): number;
  /**
   * The value at `path` as YAML's core schema reads it (`true` a boolean, `30` a
   * number), for parts whose meaning the file's YAML decides: a test definition, which
   * is JSON written as YAML.
   */
  typedAt(path: readonly PathSegment[]): unknown;
}

const NULL_SCALAR = /^(~|null|Null|NULL|)$/;
/** Aliases may each repeat a whole subtree: bound how much data a small file can expand to. */
const MAX_NODES = 1_000_000;

class Converter {
  private nodes = 0;
  constructor(private readonly doc: Document.Parsed) {}

  value(node: unknown, depth = 0): unknown {
    if (++this.nodes > MAX_NODES) throw new CliError(`YAML expands to more than ${MAX_NODES} nodes (through aliases)`, EXIT.usage);
    // Past the nesting limit (docs/contract.md §12) the rest is not needed: one more level is enough for the check to name the path.
    if (depth > INPUT_LIMITS.nestingDepth) return [];
    if (isAlias(node)) return this.value(node.resolve(this.doc), depth);
    if (isMap(node)) {
      // fromEntries defines own properties, so a key such as __proto__ stays a plain key.
      return Object.fromEntries(node.items.map((pair) => [String(isScalar(pair.key) ? pair.key.value : (pair.key ?? '')), this.value(pair.value, depth + 1)]));
    }
    if (isSeq(node)) return node.items.map((item) => this.value(item, depth + 1));
    if (isScalar(node)) {
      const text = String(node.value);
      return node.type === 'PLAIN' && NULL_SCALAR.test(text) ? null : text;
    }
    return null;
  }
}

function lineFinder(doc: Document.Parsed, lines: LineCounter) {
  const lineAt = (node: Node | null | undefined, fallback: number) => (node?.range ? lines.linePos(node.range[0]).line : fallback);
  return (path: readonly PathSegment[]): number => {
    let node: unknown = doc.contents;
    let line = lineAt(doc.contents as Node | null, 1);
    for (const [i, segment] of path.entries()) {
      if (isAlias(node)) node = node.resolve(doc);
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
        if (!pair) return line;
        if (i === path.length - 1) return lineAt(pair.key as Node, line);
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number' && node.items[segment] !== undefined) {
        node = node.items[segment];
      } else {
        return line;
      }
      line = lineAt(node as Node, line);
    }
    return line;
  };
}

/** Parses YAML text; syntax errors become one CliError listing each with its position. */
export function parseYaml(name: string, source: string): YamlFile {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, schema: 'failsafe' });
  if (doc.errors.length > 0) {
    const messages = doc.errors.map((e) => {
      const pos = lines.linePos(e.pos[0]);
      // The YAML parser recurses per level of nesting: thousands of levels exhaust its stack,
      // which it reports as RESOURCE_EXHAUSTION.
      const reason = e.code === 'RESOURCE_EXHAUSTION'
        ? `nested deeper than the limit of ${INPUT_LIMITS.nestingDepth} levels of lists and mappings`
        : `invalid YAML: ${e.message.split('\n')[0]}`;
      return `${name}:${pos.line}:${pos.col}: ${reason}`;
    });
    const n = messages.length;
    throw new CliError(`${messages.join('\n')}\n${n} error${n === 1 ? '' : 's'} in ${name}; nothing was written.`, EXIT.usage);
  }
  const value = doc.contents === null ? undefined : new Converter(doc).value(doc.contents);
  let typed: unknown;
  const typedAt = (path: readonly PathSegment[]): unknown => {
    // Parsed again only when asked for (the source parsed once already, without errors).
    typed ??= parseDocument(source, { uniqueKeys: true }).toJS();
    return path.reduce<unknown>((node, segment) => (node !== null && typeof node === 'object' ? (node as Record<string | number, unknown>)[segment] : undefined), typed);
  };
  return { name, value, lineOf: lineFinder(doc, lines), typedAt };
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
