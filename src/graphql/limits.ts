/**
 * Bounds on what one GraphQL document may ask for: tokens, selection depth, aliases, a
 * cost (fields selected after expanding fragments), how often one field may be selected
 * in one selection set and how many fragments one selection set may spread. The last two
 * exist because graphql-js's validation compares every pair of same-named fields and of
 * spread fragments: quadratic, so a document inside the token limit could still hold the
 * server for seconds. The walk here is linear: each fragment is measured once.
 *
 * The same walk sums the results an operation asks for: the `count` argument of every
 * field that takes one (directly or inside its input object), aliases and fragments
 * spread twice counting twice, each capped as the field caps it. Fifty aliases of
 * `scrollAcrossEntities(count: 1000)` are one small document asking for 50,000 hits.
 * Counts given as variables are known only once the operation runs: the document gate
 * counts literals, the operation plugin (entitiesLimit.ts) counts again with variables.
 */
import { Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';
import { LIMITS, PAGE_LIMITS } from '../domain/limits.js';

export interface QueryLimits {
  /** Lexical tokens in a document (graphql-js `maxTokens`); parsing stops beyond. */
  readonly maxTokens: number;
  readonly maxDepth: number;
  readonly maxAliases: number;
  readonly maxCost: number;
  /** Selections of one response name in one selection set (fragments merged in). */
  readonly maxSameField: number;
  /** Fragment spreads in one selection set (fragments merged in). */
  readonly maxFragmentSpreads: number;
  /** Representations one `_entities` call may resolve. */
  readonly maxRepresentations: number;
  /** Results (summed `count` arguments) one operation may ask for: the budget every interface shares. */
  readonly maxResults: number;
  /** Braces, brackets and parentheses open at once in the document's text, checked before it is parsed. */
  readonly maxNesting: number;
}

export const DEFAULT_QUERY_LIMITS: QueryLimits = {
  maxTokens: 10_000,
  maxDepth: 15,
  maxAliases: 50,
  maxCost: 5000,
  maxSameField: 25,
  maxFragmentSpreads: 50,
  maxRepresentations: 1000,
  maxResults: LIMITS.requestedResults,
  // Selections within maxDepth, each literal within the 64 levels of the input limits, with room to spare.
  maxNesting: 128,
};

export type Variables = Readonly<Record<string, unknown>>;

/** A count as given: an integer literal, or a variable holding a number; anything else asks for nothing here (the field's own validation refuses it). */
function countValue(value: ValueNode | undefined, variables: Variables | undefined): number {
  if (!value) return 0;
  if (value.kind === Kind.INT) return Number(value.value);
  if (value.kind === Kind.VARIABLE) {
    const given = variables?.[value.name.value];
    return typeof given === 'number' && Number.isFinite(given) ? given : 0;
  }
  return 0;
}

/** The results a field asks for: its `count` argument, or the `count` of an input object argument (literal or variable). */
export function requestedResults(field: FieldNode, variables?: Variables): number {
  let asked = 0;
  for (const argument of field.arguments ?? []) {
    const value = argument.value;
    if (argument.name.value === 'count') asked += countValue(value, variables);
    else if (value.kind === Kind.OBJECT) asked += countValue(value.fields.find((f) => f.name.value === 'count')?.value, variables);
    else if (value.kind === Kind.VARIABLE) {
      const given = variables?.[value.name.value];
      const count = given && typeof given === 'object' ? (given as Record<string, unknown>).count : undefined;
      if (typeof count === 'number' && Number.isFinite(count)) asked += count;
    }
  }
  // Every list and search caps its page; a larger count asks for no more than that.
  return Math.min(Math.max(asked, 0), PAGE_LIMITS.maxCount);
}

/** What a selection set holds, fragments expanded. */
export interface Measure {
  depth: number;
  aliases: number;
  cost: number;
  /** The first response name selected more often than allowed in one selection set. */
  repeated: string | undefined;
  /** The most fragment spreads found in one selection set. */
  spreads: number;
  /** Results asked for: the summed counts of the fields selected, fragments expanded. */
  results: number;
}

/** One merged selection level: the response names and spreads of a set and the fragments in it. */
interface Level {
  readonly names: Map<string, number>;
  spreads: number;
}

/** A fragment's measure and its own level, so that spreading it merges both into the spreading set. */
interface FragmentSummary {
  readonly measure: Measure;
  readonly level: Level;
}

const IN_PROGRESS = Symbol('in progress');

/** Selections one document's walk may count, fragments merged in, before it is refused as too costly. */
const WORK_PER_COST = 20;

class Walker {
  private readonly summaries = new Map<string, FragmentSummary | typeof IN_PROGRESS>();
  private work = 0;

  constructor(
    private readonly fragments: (name: string) => FragmentDefinitionNode | null | undefined,
    private readonly limits: QueryLimits,
    private readonly variables?: Variables,
  ) {}

  measure(set: SelectionSetNode): Measure {
    const level: Level = { names: new Map(), spreads: 0 };
    const m: Measure = { depth: 0, aliases: 0, cost: 0, repeated: undefined, spreads: 0, results: 0 };
    this.collect(set, level, m);
    m.spreads = Math.max(m.spreads, level.spreads);
    return m;
  }

  over(m: Measure): boolean {
    const l = this.limits;
    return m.cost > l.maxCost || m.aliases > l.maxAliases || m.depth > l.maxDepth || m.repeated !== undefined || m.spreads > l.maxFragmentSpreads || m.results > l.maxResults;
  }

  /** Adds the selections of `set` to `level` (inline fragments and spreads belong to it); fields' own sets are new levels. */
  private collect(set: SelectionSetNode, level: Level, m: Measure): void {
    for (const selection of set.selections) {
      // Stop early on pathological documents instead of walking them whole.
      if (this.over(m) || level.spreads > this.limits.maxFragmentSpreads) return;
      if (selection.kind === Kind.FIELD) {
        this.count(level, m, selection.alias?.value ?? selection.name.value, 1);
        m.cost++;
        m.results += requestedResults(selection, this.variables);
        if (selection.alias) m.aliases++;
        if (selection.selectionSet) this.add(m, this.measure(selection.selectionSet), 1);
        else m.depth = Math.max(m.depth, 1);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        this.collect(selection.selectionSet, level, m);
      } else {
        level.spreads++;
        const summary = this.fragment(selection.name.value);
        if (!summary) continue;
        this.add(m, summary.measure, 0);
        for (const [name, n] of summary.level.names) this.count(level, m, name, n);
        level.spreads += summary.level.spreads;
      }
    }
  }

  private count(level: Level, m: Measure, name: string, n: number): void {
    // Merging fragments' names is the walk's only repeated work; a document that makes
    // it large selects far more than maxCost fields once expanded.
    if (++this.work > this.limits.maxCost * WORK_PER_COST) m.cost = Math.max(m.cost, this.limits.maxCost + 1);
    const total = (level.names.get(name) ?? 0) + n;
    level.names.set(name, total);
    if (total > this.limits.maxSameField) m.repeated ??= name;
  }

  private add(m: Measure, child: Measure, depthStep: number): void {
    m.depth = Math.max(m.depth, child.depth + depthStep);
    m.aliases += child.aliases;
    m.cost += child.cost;
    m.repeated ??= child.repeated;
    m.spreads = Math.max(m.spreads, child.spreads);
    m.results += child.results;
  }

  /** A fragment measured once per document; undefined for unknown fragments and cycles (graphql's own rules report those). */
  private fragment(name: string): FragmentSummary | undefined {
    const known = this.summaries.get(name);
    if (known === IN_PROGRESS) return undefined;
    if (known) return known;
    const definition = this.fragments(name);
    if (!definition) return undefined;
    this.summaries.set(name, IN_PROGRESS);
    const level: Level = { names: new Map(), spreads: 0 };
    const measure: Measure = { depth: 0, aliases: 0, cost: 0, repeated: undefined, spreads: 0, results: 0 };
    this.collect(definition.selectionSet, level, measure);
    const summary = { measure, level };
    this.summaries.set(name, summary);
    return summary;
  }
}

/** The first limit a measure exceeds, as the message to answer with. */
export function limitExceeded(m: Measure, limits: QueryLimits): string | undefined {
  if (m.depth > limits.maxDepth) return `Query depth ${m.depth} exceeds the limit of ${limits.maxDepth}`;
  if (m.aliases > limits.maxAliases) return `Query uses more than the limit of ${limits.maxAliases} aliases`;
  if (m.cost > limits.maxCost) return `Query selects more than the limit of ${limits.maxCost} fields`;
  if (m.repeated !== undefined) return `Query selects ${m.repeated} more than ${limits.maxSameField} times in one selection set`;
  if (m.spreads > limits.maxFragmentSpreads) return `Query spreads more than the limit of ${limits.maxFragmentSpreads} fragments in one selection set`;
  if (m.results > limits.maxResults) {
    return `Query asks for ${m.results} results (the count of every field that takes one, each alias and fragment spread counted), more than the limit of ${limits.maxResults} per request; ask for fewer, or page with the next cursor`;
  }
  return undefined;
}

/** Measures every operation and fragment of a document; the first limit exceeded, if any. */
export function checkDocument(document: DocumentNode, fragments: (name: string) => FragmentDefinitionNode | null | undefined, limits: QueryLimits): { message: string; node: DocumentNode['definitions'][number] } | undefined {
  const walker = new Walker(fragments, limits);
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION && definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
    const message = limitExceeded(walker.measure(definition.selectionSet), limits);
    if (message) return { message, node: definition };
  }
  return undefined;
}

/** The measure of one selection set, with the operation's variables when known (the `_entities` work count, the results asked for). */
export function measureSelection(set: SelectionSetNode, fragments: (name: string) => FragmentDefinitionNode | null | undefined, limits: QueryLimits, variables?: Variables): Measure {
  return new Walker(fragments, limits, variables).measure(set);
}
