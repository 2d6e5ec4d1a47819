/**
 * The one filter tree behind every search (docs/contract.md §6). GraphQL `orFilters` and the REST
 * query string (luceneQuery.ts) both become a FilterNode; the search module compiles
 * it for the engine. Field names stay as the caller wrote them (searchFields.ts
 * interprets them) and values stay strings until the field's type is known.
 */
import { ValidationError } from './errors.js';

export type ComparisonOp = 'gt' | 'gte' | 'lt' | 'lte';
export type TextOp = 'contains' | 'startsWith' | 'endsWith';

export interface RangeBound {
  readonly value: string;
  readonly inclusive: boolean;
}

export type FilterNode =
  | { readonly kind: 'all' }
  | { readonly kind: 'none' }
  | { readonly kind: 'and'; readonly items: readonly FilterNode[] }
  | { readonly kind: 'or'; readonly items: readonly FilterNode[] }
  | { readonly kind: 'not'; readonly item: FilterNode }
  | { readonly kind: 'exists'; readonly field: string }
  /** Matches when any of the field's values equals any of `values`. */
  | { readonly kind: 'equals'; readonly field: string; readonly values: readonly string[] }
  | { readonly kind: 'compare'; readonly field: string; readonly op: ComparisonOp; readonly value: string }
  | { readonly kind: 'range'; readonly field: string; readonly lower?: RangeBound; readonly upper?: RangeBound }
  | { readonly kind: 'text'; readonly field: string; readonly op: TextOp; readonly value: string }
  /** Words (or a quoted phrase) to find in names, display names, descriptions and URNs (docs/contract.md §12). */
  | { readonly kind: 'keyword'; readonly text: string };

export const ALL: FilterNode = { kind: 'all' };
export const NONE: FilterNode = { kind: 'none' };

export function and(items: readonly FilterNode[]): FilterNode {
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}

export function or(items: readonly FilterNode[]): FilterNode {
  return items.length === 1 ? items[0]! : { kind: 'or', items };
}

/** Every field name the tree mentions, once each, in order of appearance. */
export function fieldsOf(node: FilterNode): string[] {
  const out = new Set<string>();
  const walk = (n: FilterNode): void => {
    switch (n.kind) {
      case 'all':
      case 'none':
      case 'keyword':
        return;
      case 'and':
      case 'or':
        n.items.forEach(walk);
        return;
      case 'not':
        walk(n.item);
        return;
      default:
        out.add(n.field);
    }
  };
  walk(node);
  return [...out];
}

/** Rewrites leaves (e.g. to `none` when their field names nothing), then folds constants. */
export function mapLeaves(node: FilterNode, fn: (leaf: FilterNode & { field: string }) => FilterNode): FilterNode {
  switch (node.kind) {
    case 'all':
    case 'none':
    case 'keyword':
      return node;
    case 'and':
      return simplify({ kind: 'and', items: node.items.map((i) => mapLeaves(i, fn)) });
    case 'or':
      return simplify({ kind: 'or', items: node.items.map((i) => mapLeaves(i, fn)) });
    case 'not':
      return simplify({ kind: 'not', item: mapLeaves(node.item, fn) });
    default:
      return fn(node);
  }
}

/** Folds `all`/`none` through AND, OR and NOT and flattens nested ANDs and ORs. */
export function simplify(node: FilterNode): FilterNode {
  switch (node.kind) {
    case 'and': {
      const items: FilterNode[] = [];
      for (const raw of node.items) {
        const item = simplify(raw);
        if (item.kind === 'none') return NONE;
        if (item.kind === 'all') continue;
        if (item.kind === 'and') items.push(...item.items);
        else items.push(item);
      }
      return items.length === 0 ? ALL : and(items);
    }
    case 'or': {
      const items: FilterNode[] = [];
      for (const raw of node.items) {
        const item = simplify(raw);
        if (item.kind === 'all') return ALL;
        if (item.kind === 'none') continue;
        if (item.kind === 'or') items.push(...item.items);
        else items.push(item);
      }
      return items.length === 0 ? NONE : or(items);
    }
    case 'not': {
      const item = simplify(node.item);
      if (item.kind === 'all') return NONE;
      if (item.kind === 'none') return ALL;
      if (item.kind === 'not') return item.item;
      return { kind: 'not', item };
    }
    default:
      return node;
  }
}

/**
 * Separates the keyword terms of a query from its filter. The engine finds keywords
 * in every hit and filters among them, so keywords may only be ANDed with the rest of
 * the query (`clicks AND platform:hive`); under OR or NOT they are refused.
 */
export function splitKeywords(node: FilterNode): { keywords: string | null; filter: FilterNode } {
  const items = node.kind === 'and' ? node.items : [node];
  const words: string[] = [];
  const rest: FilterNode[] = [];
  for (const item of items) {
    if (item.kind === 'keyword') words.push(item.text);
    else rest.push(item);
  }
  const misplaced = rest.find(hasKeyword);
  if (misplaced) {
    throw new ValidationError(
      'Keyword terms (words without field:) can only be combined with the rest of the query by AND; to match a field, write field:value',
      'query',
    );
  }
  return { keywords: words.length > 0 ? words.join(' ') : null, filter: simplify(and(rest.length > 0 ? rest : [ALL])) };
}

function hasKeyword(node: FilterNode): boolean {
  switch (node.kind) {
    case 'keyword':
      return true;
    case 'and':
    case 'or':
      return node.items.some(hasKeyword);
    case 'not':
      return hasKeyword(node.item);
    default:
      return false;
  }
}

// ---- The GraphQL front end: orFilters, an OR of ANDs of facet filters ----

export type FilterCondition =
  | 'EQUAL'
  | 'IN'
  | 'EXISTS'
  | 'GREATER_THAN'
  | 'GREATER_THAN_OR_EQUAL_TO'
  | 'LESS_THAN'
  | 'LESS_THAN_OR_EQUAL_TO'
  | 'CONTAIN'
  | 'START_WITH'
  | 'END_WITH';

export const FILTER_CONDITIONS: readonly FilterCondition[] = [
  'EQUAL', 'IN', 'EXISTS', 'GREATER_THAN', 'GREATER_THAN_OR_EQUAL_TO', 'LESS_THAN', 'LESS_THAN_OR_EQUAL_TO', 'CONTAIN', 'START_WITH', 'END_WITH',
];

export interface FacetFilter {
  field: string;
  values?: string[] | null;
  condition?: FilterCondition | null;
  negated?: boolean | null;
}

export interface AndFilter {
  and?: FacetFilter[] | null;
}

const COMPARISONS: Partial<Record<FilterCondition, ComparisonOp>> = {
  GREATER_THAN: 'gt',
  GREATER_THAN_OR_EQUAL_TO: 'gte',
  LESS_THAN: 'lt',
  LESS_THAN_OR_EQUAL_TO: 'lte',
};

const TEXT_OPS: Partial<Record<FilterCondition, TextOp>> = {
  CONTAIN: 'contains',
  START_WITH: 'startsWith',
  END_WITH: 'endsWith',
};

function facetFilterNode(f: FacetFilter, where: string): FilterNode {
  if (typeof f.field !== 'string' || f.field.trim() === '') throw new ValidationError(`${where}.field must be a field name`, `${where}.field`);
  const condition = f.condition ?? 'EQUAL';
  if (!FILTER_CONDITIONS.includes(condition)) {
    throw new ValidationError(`${where}.condition ${String(condition)} is not one of ${FILTER_CONDITIONS.join(', ')}`, `${where}.condition`);
  }
  const values = f.values ?? [];
  if (values.some((v) => typeof v !== 'string')) throw new ValidationError(`${where}.values must be strings`, `${where}.values`);
  const needValues = (): void => {
    if (values.length === 0) throw new ValidationError(`${where}: condition ${condition} needs at least one value`, `${where}.values`);
  };
  let node: FilterNode;
  const comparison = COMPARISONS[condition];
  const textOp = TEXT_OPS[condition];
  if (condition === 'EXISTS') {
    node = { kind: 'exists', field: f.field };
  } else if (comparison) {
    needValues();
    if (values.length > 1) throw new ValidationError(`${where}: condition ${condition} takes exactly one value`, `${where}.values`);
    node = { kind: 'compare', field: f.field, op: comparison, value: values[0]! };
  } else if (textOp) {
    needValues();
    node = or(values.map((value) => ({ kind: 'text', field: f.field, op: textOp, value })));
  } else {
    needValues();
    node = { kind: 'equals', field: f.field, values };
  }
  return f.negated ? { kind: 'not', item: node } : node;
}

/** GraphQL `orFilters`: absent or empty means no filter; an empty `and` matches everything. */
export function filterFromOrFilters(orFilters: readonly AndFilter[] | null | undefined): FilterNode {
  if (!orFilters || orFilters.length === 0) return ALL;
  const branches = orFilters.map((branch, i) => and((branch?.and ?? []).map((f, j) => facetFilterNode(f, `orFilters[${i}].and[${j}]`))));
  return simplify({ kind: 'or', items: branches });
}
