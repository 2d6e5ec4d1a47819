/**
 * Compiles a FilterNode (domain/searchFilter.ts) into a Meilisearch filter string.
 * Pure: the caller has already resolved every field name to the attribute that holds
 * it (structured properties to their current generation's `sp.g<n>` field) and
 * replaced leaves on unknown fields by `none`.
 *
 * Meilisearch compares filterable strings in lower case and only as stored (cut to
 * MAX_TEXT_BYTES), so text operands get the same treatment as indexed texts.
 */
import { ValidationError } from '../domain/errors.js';
import { keyFieldInfo } from '../domain/searchFields.js';
import type { FilterNode } from '../domain/searchFilter.js';
import { indexText, keyAttribute, nameWords, reverseText, reversedField, sortKey, valueField } from './documents.js';
import type { ResolvedField } from './request.js';

export interface FieldTarget {
  /** The Meilisearch attribute holding the field's values. */
  readonly attr: string;
  readonly valueKind: 'number' | 'text' | 'boolean';
  /** An attribute holding the words of the text: equality also matches a value's words there. */
  readonly wordsAttr?: string;
  /** The attribute holding the texts reversed (END_WITH), where there is one. */
  readonly reversedAttr?: string;
  /**
   * Equality on URNs goes through the exact sort key `_k` (one per URN, never normalised),
   * not the lower-cased text. The key is filterable anyway, for the keyset cursor; a
   * filterable document id beside it cost the index 13-15% of its size (docs/decisions.md).
   */
  readonly equalityByKey?: boolean;
}

/** Where a resolved field lives in the index and how its values compare. */
export function targetOf(field: ResolvedField): FieldTarget {
  if (field.kind === 'property') {
    return { attr: valueField(field.generation), reversedAttr: reversedField(field.generation), valueKind: field.numeric ? 'number' : 'text' };
  }
  const attr = keyAttribute(field.name);
  if (field.name === 'urn') return { attr, valueKind: 'text', equalityByKey: true };
  if (field.name === 'name') return { attr, valueKind: 'text', wordsAttr: '_nw' };
  return { attr, valueKind: keyFieldInfo(field.name).kind };
}

export function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function numberOperand(field: string, value: string): string {
  const trimmed = value.trim();
  const n = Number(trimmed);
  if (!NUMBER.test(trimmed) || !Number.isFinite(n)) throw new ValidationError(`Filter value ${JSON.stringify(value)} for ${field} is not a number`, 'values');
  return quote(String(n));
}

/** An operand for an ordering comparison: numbers as numbers, texts lower-cased as Meilisearch stores them. */
function orderedOperand(field: string, target: FieldTarget, value: string): string {
  if (target.valueKind === 'boolean') throw new ValidationError(`${field} is true or false; it has no order`, 'condition');
  return target.valueKind === 'number' ? numberOperand(field, value) : quote(indexText(value).toLowerCase());
}

function booleanOperand(field: string, value: string): string {
  const v = value.trim().toLowerCase();
  if (v !== 'true' && v !== 'false') throw new ValidationError(`Filter value ${JSON.stringify(value)} for ${field} is not true or false`, 'values');
  return v;
}

function equalityOperand(field: string, target: FieldTarget, value: string): string {
  if (target.valueKind === 'boolean') return booleanOperand(field, value);
  return target.valueKind === 'number' ? numberOperand(field, value) : quote(indexText(value));
}

/** `value` as the whole text, or as words of it (all of them). */
function equalsOrWords(target: FieldTarget & { wordsAttr: string }, value: string): string {
  const words = nameWords(value);
  const exact = `${target.attr} = ${quote(indexText(value))}`;
  if (words.length === 0) return exact;
  const all = words.map((w) => `${target.wordsAttr} = ${quote(indexText(w))}`);
  return `(${exact} OR ${all.length === 1 ? all[0] : `(${all.join(' AND ')})`})`;
}

const COMPARATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

export function compileFilter(node: FilterNode, targets: ReadonlyMap<string, FieldTarget>): string {
  const target = (field: string): FieldTarget => {
    const t = targets.get(field);
    if (!t) throw new Error(`compileFilter: field ${field} was not resolved`);
    return t;
  };
  const compile = (n: FilterNode): string => {
    switch (n.kind) {
      case 'all':
      case 'none':
        throw new Error('compileFilter: constants must be folded away first');
      case 'keyword':
        throw new Error('compileFilter: keywords must be split off first (splitKeywords)');
      case 'and':
        return `(${n.items.map(compile).join(' AND ')})`;
      case 'or':
        return `(${n.items.map(compile).join(' OR ')})`;
      case 'not':
        return `(NOT ${compile(n.item)})`;
      case 'exists':
        return `${target(n.field).attr} EXISTS`;
      case 'equals': {
        const t = target(n.field);
        if (t.equalityByKey) return `_k IN [${n.values.map((v) => quote(sortKey(v))).join(', ')}]`;
        const wordsAttr = t.wordsAttr;
        if (wordsAttr !== undefined) {
          const each = n.values.map((v) => equalsOrWords({ ...t, wordsAttr }, v));
          return each.length === 1 ? each[0]! : `(${each.join(' OR ')})`;
        }
        const operands = n.values.map((v) => equalityOperand(n.field, t, v));
        return operands.length === 1 ? `${t.attr} = ${operands[0]}` : `${t.attr} IN [${operands.join(', ')}]`;
      }
      case 'compare': {
        const t = target(n.field);
        return `${t.attr} ${COMPARATORS[n.op]} ${orderedOperand(n.field, t, n.value)}`;
      }
      case 'range': {
        const t = target(n.field);
        const parts: string[] = [];
        if (n.lower) parts.push(`${t.attr} ${n.lower.inclusive ? '>=' : '>'} ${orderedOperand(n.field, t, n.lower.value)}`);
        if (n.upper) parts.push(`${t.attr} ${n.upper.inclusive ? '<=' : '<'} ${orderedOperand(n.field, t, n.upper.value)}`);
        // `[* TO *]` bounds nothing: the field only has to be there.
        return parts.length === 0 ? `${t.attr} EXISTS` : `(${parts.join(' AND ')})`;
      }
      case 'text': {
        const t = target(n.field);
        if (t.valueKind !== 'text') throw new ValidationError(`${n.field} holds ${t.valueKind === 'number' ? 'numbers' : 'true or false'}; CONTAIN, START_WITH and END_WITH apply to text`, 'condition');
        if (n.op === 'contains') return `${t.attr} CONTAINS ${quote(indexText(n.value))}`;
        if (n.op === 'startsWith') return `${t.attr} STARTS WITH ${quote(indexText(n.value))}`;
        if (!t.reversedAttr) throw new ValidationError(`END_WITH is not supported on ${n.field}; it applies to structured property values`, 'condition');
        return `${t.reversedAttr} STARTS WITH ${quote(indexText(reverseText(n.value)))}`;
      }
    }
  };
  return compile(node);
}
