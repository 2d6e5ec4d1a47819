/**
 * The REST query string (docs/contract.md §6): a subset of Lucene's query_string syntax, parsed by
 * recursive descent into a FilterNode.
 *
 *   query   := orExpr | (empty)
 *   orExpr  := andExpr ("OR" andExpr)*
 *   andExpr := unary ("AND" unary)*
 *   unary   := "NOT" unary | primary
 *   primary := "(" orExpr ")" | "*" | "_exists_:" field | field ":" value | keyword
 *   keyword := word | "quoted phrase"
 *   value   := ">" v | ">=" v | "<" v | "<=" v | ("[" | "{") v "TO" v ("]" | "}") | "*" | v
 *   v       := "quoted \"text\"" | word (backslash escapes any character)
 *
 * In a value, unlike Lucene, a colon continues the word and parentheses opened inside it
 * close inside it: `failingTests:urn:li:test:t1` and `urn:urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)`
 * are URNs as people paste them (a value can never be followed by ":", so nothing is lost).
 *
 * A primary may also be a bare word or a quoted phrase without a field: a keyword
 * (docs/contract.md §12), searched in names, descriptions and URNs; keywords side by side form one
 * keyword search. Keywords are upper case, as in Lucene. Anything outside this grammar
 * (two field clauses without AND/OR between them, wildcards inside words) is a
 * ValidationError naming the 1-based position where parsing stopped.
 */
import { ValidationError } from './errors.js';
import { ALL, and, or, type ComparisonOp, type FilterNode, type RangeBound } from './searchFilter.js';

export const MAX_QUERY_LENGTH = 10_000;
const MAX_DEPTH = 64;

/** Characters that end an unquoted word. */
const DELIMITERS = new Set([' ', '\t', '\n', '\r', '(', ')', ':', '[', ']', '{', '}', '"']);
const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'TO']);

interface Word {
  readonly text: string;
  readonly start: number;
  /** Whether the word was written bare, with no escapes (only such words are keywords). */
  readonly plain: boolean;
  /** Whether it holds an unescaped `*` or `?`. */
  readonly wildcard: boolean;
}

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  parse(): FilterNode {
    this.skipSpace();
    if (this.atEnd()) return ALL;
    const node = this.orExpr();
    this.skipSpace();
    if (!this.atEnd()) this.fail(this.peek() === ')' ? 'unbalanced ")"' : 'expected AND, OR or the end of the query');
    return node;
  }

  private orExpr(): FilterNode {
    const items = [this.andExpr()];
    while (this.keywordAhead('OR')) {
      this.readWord();
      items.push(this.andExpr());
    }
    return or(items);
  }

  private andExpr(): FilterNode {
    const items = [this.unary()];
    for (;;) {
      if (this.keywordAhead('AND')) {
        this.readWord();
        items.push(this.unary());
        continue;
      }
      this.skipSpace();
      if (this.atEnd() || this.peek() === ')' || this.keywordAhead('OR')) break;
      // Keyword terms side by side are one keyword search (`daily clicks`).
      const at = this.pos;
      const last = items[items.length - 1]!;
      const next = last.kind === 'keyword' && !this.keywordAhead('NOT') ? this.unary() : undefined;
      if (last.kind !== 'keyword' || next?.kind !== 'keyword') this.fail('expected AND or OR between clauses', at);
      items[items.length - 1] = { kind: 'keyword', text: `${last.text} ${next.text}` };
    }
    return and(items);
  }

  private unary(): FilterNode {
    if (this.keywordAhead('NOT')) {
      this.readWord();
      return { kind: 'not', item: this.nested(() => this.unary()) };
    }
    return this.primary();
  }

  private primary(): FilterNode {
    this.skipSpace();
    if (this.atEnd()) this.fail('expected a clause such as field:value');
    const c = this.peek();
    if (c === '(') {
      this.pos++;
      const inner = this.nested(() => this.orExpr());
      this.skipSpace();
      if (this.peek() !== ')') this.fail('expected ")"');
      this.pos++;
      return inner;
    }
    if (c === '"') {
      // A phrase: its words next to each other. Quotes inside it would end the engine's phrase.
      const phrase = this.quoted().replace(/"/g, ' ').trim();
      return phrase === '' ? ALL : { kind: 'keyword', text: `"${phrase}"` };
    }
    if (c === ')' || c === ':' || c === '[' || c === ']' || c === '{' || c === '}') this.fail(`unexpected "${c}"`);
    const word = this.readWord();
    if (word.plain && KEYWORDS.has(word.text)) this.fail(`unexpected ${word.text}`, word.start);
    if (this.peek() !== ':') {
      if (word.plain && word.text === '*') return ALL;
      if (word.wildcard) this.fail('wildcards are not supported in keywords; a keyword already matches words it begins', word.start);
      return { kind: 'keyword', text: word.text };
    }
    this.pos++;
    return this.clause(word);
  }

  private clause(field: Word): FilterNode {
    if (field.wildcard) this.fail('wildcards are not supported in field names', field.start);
    if (field.text === '_exists_' && field.plain) {
      const target = this.readValueWord('a field name after _exists_:', false);
      if (target.wildcard) this.fail('wildcards are not supported in field names', target.start);
      return { kind: 'exists', field: target.text };
    }
    const c = this.peek();
    if (c === '>' || c === '<') {
      this.pos++;
      let op: ComparisonOp = c === '>' ? 'gt' : 'lt';
      if (this.peek() === '=') {
        this.pos++;
        op = c === '>' ? 'gte' : 'lte';
      }
      return { kind: 'compare', field: field.text, op, value: this.value('a value after the comparison') };
    }
    if (c === '[' || c === '{') return this.range(field.text);
    if (this.peek() === '"') return { kind: 'equals', field: field.text, values: [this.quoted()] };
    const word = this.readValueWord('a value after ":"');
    if (word.plain && word.text === '*') return { kind: 'exists', field: field.text };
    if (word.wildcard) this.fail('wildcards are not supported; quote the value to match * or ? literally', word.start);
    return { kind: 'equals', field: field.text, values: [word.text] };
  }

  private range(field: string): FilterNode {
    const lowerInclusive = this.peek() === '[';
    this.pos++;
    const lower = this.bound('a lower bound');
    this.skipSpace();
    if (!this.keywordAhead('TO')) this.fail('expected TO in the range');
    this.readWord();
    const upper = this.bound('an upper bound');
    this.skipSpace();
    const close = this.peek();
    if (close !== ']' && close !== '}') this.fail('expected "]" or "}" to close the range');
    this.pos++;
    const out: { kind: 'range'; field: string; lower?: RangeBound; upper?: RangeBound } = { kind: 'range', field };
    if (lower !== undefined) out.lower = { value: lower, inclusive: lowerInclusive };
    if (upper !== undefined) out.upper = { value: upper, inclusive: close === ']' };
    return out;
  }

  /** A range bound; undefined for an open end (`*`). */
  private bound(what: string): string | undefined {
    this.skipSpace();
    if (this.peek() === '"') return this.quoted();
    const word = this.readValueWord(what);
    if (word.plain && word.text === '*') return undefined;
    if (word.wildcard) this.fail('wildcards are not supported in range bounds', word.start);
    return word.text;
  }

  private value(what: string): string {
    if (this.peek() === '"') return this.quoted();
    const word = this.readValueWord(what);
    if (word.wildcard) this.fail('wildcards are not supported; quote the value to match * or ? literally', word.start);
    return word.text;
  }

  private readValueWord(what: string, urnLike = true): Word {
    const c = this.peek();
    if (this.atEnd() || DELIMITERS.has(c)) this.fail(`expected ${what}`);
    return this.readWord(urnLike);
  }

  private quoted(): string {
    const start = this.pos;
    this.pos++;
    let out = '';
    while (!this.atEnd()) {
      const c = this.text[this.pos]!;
      if (c === '\\') {
        if (this.pos + 1 >= this.text.length) break;
        out += this.text[this.pos + 1];
        this.pos += 2;
        continue;
      }
      if (c === '"') {
        this.pos++;
        return out;
      }
      out += c;
      this.pos++;
    }
    return this.fail('unterminated quoted value', start);
  }

  /** With `urnLike`, a value's word: colons continue it, and parentheses it opens after a colon close in it. */
  private readWord(urnLike = false): Word {
    this.skipSpace();
    const start = this.pos;
    let text = '';
    let plain = true;
    let wildcard = false;
    let open = 0;
    while (!this.atEnd()) {
      const c = this.text[this.pos]!;
      if (c === '\\') {
        if (this.pos + 1 >= this.text.length) this.fail('a backslash must escape a character');
        text += this.text[this.pos + 1];
        this.pos += 2;
        plain = false;
        continue;
      }
      if (urnLike && (c === ':' || (c === '(' && text.endsWith(':')) || (c === ')' && open > 0))) {
        if (c === '(') open++;
        if (c === ')') open--;
        text += c;
        this.pos++;
        continue;
      }
      if (DELIMITERS.has(c)) break;
      if (c === '*' || c === '?') wildcard = true;
      text += c;
      this.pos++;
    }
    if (text.length === 0) this.fail('expected a word');
    if (open > 0) this.fail('a "(" in the value is not closed', start);
    return { text, start, plain, wildcard: wildcard && !(plain && text === '*') };
  }

  private keywordAhead(keyword: string): boolean {
    this.skipSpace();
    if (!this.text.startsWith(keyword, this.pos)) return false;
    const next = this.text[this.pos + keyword.length];
    return next === undefined || (DELIMITERS.has(next) && next !== ':');
  }

  private nested<T>(fn: () => T): T {
    if (++this.depth > MAX_DEPTH) this.fail(`the query nests deeper than ${MAX_DEPTH} levels`);
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  private skipSpace(): void {
    while (!this.atEnd() && /\s/.test(this.text[this.pos]!)) this.pos++;
  }

  private peek(): string {
    return this.text[this.pos] ?? '';
  }

  private atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  private fail(message: string, at = this.pos): never {
    throw new ValidationError(`Invalid query at position ${at + 1}: ${message}`, 'query');
  }
}

/** Parses a REST `query` parameter; empty or `*` matches everything. */
export function parseLuceneQuery(text: string): FilterNode {
  if (text.length > MAX_QUERY_LENGTH) throw new ValidationError(`query is longer than the limit of ${MAX_QUERY_LENGTH} characters`, 'query');
  return new Parser(text).parse();
}
