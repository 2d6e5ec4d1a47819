/**
 * Bounds on what one GraphQL document may ask for: tokens, selection depth, aliases, a cost,
 * the results it asks for, the fragments merged into one selection set and the work of
 * checking that repeated fields merge (mergeComparisons.ts).
 *
 * Cost is what is resolved, not what is spelled: as graphql-js executes a selection set, the
 * fields of one response name are merged (from the set itself, its inline fragments and the
 * fragments it spreads) and resolved once, and a fragment spread twice into one set adds
 * nothing. Apollo Client adds `__typename` to every selection set and DataHub's app spreads
 * the same fragments at many levels, so its documents spell `__typename` up to 811 times and
 * `properties` 23 times in one merged set while resolving it once. The walk merges each
 * level as the executor does; inline fragments and fragments on different object types
 * exclude each other (an object has one type), so a level costs its common fields plus its
 * costliest object type's own. Without the schema (`isObjectType` absent), every branch is
 * counted as if it applied.
 *
 * The results an operation asks for: the `count` argument of every field that takes one
 * (directly or inside its input object), each resolved field counted once and capped as the
 * field caps it. Fifty aliases of `scrollAcrossEntities(count: 1000)` are one small document
 * asking for 50,000 hits. Counts given as variables are known only once the operation runs:
 * the document gate counts literals, the operation plugin (entitiesLimit.ts) counts again
 * with variables.
 */
import { Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';
import { LIMITS, PAGE_LIMITS } from '../domain/limits.js';
import { mergeComparisons } from './mergeComparisons.js';

export interface QueryLimits {
  /** Lexical tokens in a document (graphql-js `maxTokens`); parsing stops beyond. */
  readonly maxTokens: number;
  readonly maxDepth: number;
  /** Aliased response names resolved in one selection set (fragments merged in). */
  readonly maxAliases: number;
  /** Fields resolved on one object of each type, summed down the tree (each response name once per selection set). */
  readonly maxCost: number;
  /** Comparisons graphql-js's field-merging check makes between fields spelled more than once (mergeComparisons.ts). */
  readonly maxMergeComparisons: number;
  /** Distinct fragments merged into one selection set (spread directly or through other fragments). */
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
  // DataHub's app nests its search results 18 fields deep (an entity's siblings' parents' platforms...).
  maxDepth: 25,
  maxAliases: 50,
  // DataHub's app's costliest page query (getDataset) resolves about 10,800 fields on a dataset.
  maxCost: 20_000,
  // Its documents need at most about 6,400; a field spelled 300 times in one set needs 44,850.
  maxMergeComparisons: 25_000,
  maxFragmentSpreads: 50,
  maxRepresentations: 1000,
  maxResults: LIMITS.requestedResults,
  // Selections within maxDepth, each literal within the 64 levels of the input limits, with room to spare.
  maxNesting: 128,
};

export type Variables = Readonly<Record<string, unknown>>;
export type Fragments = (name: string) => FragmentDefinitionNode | null | undefined;
/** Whether a type condition names an object type (one an object either is or is not); unknown names are not. */
export type IsObjectType = (typeName: string) => boolean;

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

/** What a selection resolves. */
export interface Measure {
  depth: number;
  /** The most aliased response names in one selection set. */
  aliases: number;
  cost: number;
  /** The most distinct fragments merged into one selection set. */
  spreads: number;
  /** Results asked for: the counts of the fields resolved. */
  results: number;
}

/** One response name of a merged level: every selection set its spellings carry, and what they ask. */
interface Spelled {
  readonly sets: SelectionSetNode[];
  results: number;
  readonly aliased: boolean;
}

/** A merged level: the fields every object resolves, and those only an object of one type does. */
interface Level {
  readonly common: Map<string, Spelled>;
  readonly byType: Map<string, Map<string, Spelled>>;
  readonly visited: Map<Map<string, Spelled>, Set<string>>;
  spreads: number;
}

const zero = (): Measure => ({ depth: 0, aliases: 0, cost: 0, spreads: 0, results: 0 });

/** Selections one document's walk may visit, fragments merged in, per unit of maxCost. */
const WORK_PER_COST = 20;

class Walker {
  private work = 0;
  /**
   * What each merged level measured, by its sets. A level's measure depends on nothing but
   * its sets (the fragments merged into them are merged afresh in each level), and DataHub's
   * app spreads the same fragments under many fields: remembered, each is walked once per
   * document instead of once per place (its search document: 107 ms at the gate and 11 ms
   * in the operation plugin, 10 and 1.6 ms after).
   */
  private readonly measured = new Map<string, Measure>();
  private readonly setIds = new Map<SelectionSetNode, number>();

  constructor(
    private readonly fragments: Fragments,
    private readonly limits: QueryLimits,
    private readonly variables: Variables | undefined,
    private readonly isObjectType: IsObjectType | undefined,
  ) {}

  /** The measure of the sets merged as one level: what an object resolves from all of them. */
  measure(sets: readonly SelectionSetNode[]): Measure {
    const key = sets.map((set) => this.idOf(set)).join(',');
    const known = this.measured.get(key);
    if (known) return known;
    const measured = this.measureLevel(sets);
    this.measured.set(key, measured);
    return measured;
  }

  private idOf(set: SelectionSetNode): number {
    let id = this.setIds.get(set);
    if (id === undefined) this.setIds.set(set, (id = this.setIds.size));
    return id;
  }

  private measureLevel(sets: readonly SelectionSetNode[]): Measure {
    const level: Level = { common: new Map(), byType: new Map(), visited: new Map(), spreads: 0 };
    for (const set of sets) this.collect(set, level, level.common);
    const fields = new Map<string, Measure>();
    const common = zero();
    const commonAliases = aliasesOf(level.common);
    common.aliases = commonAliases;
    for (const [name, spelled] of level.common) {
      if (this.over(common) || this.tooMuchWork()) break;
      const field = this.field(spelled.sets, spelled);
      fields.set(name, field);
      add(common, field);
    }
    let best = common;
    for (const own of level.byType.values()) {
      if (this.over(best) || this.tooMuchWork()) break;
      const variant = { ...common, aliases: Math.max(common.aliases, commonAliases + aliasesOf(own, level.common)) };
      for (const [name, spelled] of own) {
        if (this.over(variant) || this.tooMuchWork()) break;
        const shared = level.common.get(name);
        if (shared) {
          subtract(variant, fields.get(name) ?? zero());
          add(variant, this.field([...shared.sets, ...spelled.sets], { sets: [], results: Math.max(shared.results, spelled.results), aliased: shared.aliased || spelled.aliased }));
        } else add(variant, this.field(spelled.sets, spelled));
      }
      best = larger(best, variant);
    }
    if (this.tooMuchWork()) best.cost = Math.max(best.cost, this.limits.maxCost + 1);
    best.spreads = Math.max(best.spreads, level.spreads);
    return best;
  }

  over(m: Measure): boolean {
    const l = this.limits;
    return m.cost > l.maxCost || m.aliases > l.maxAliases || m.depth > l.maxDepth || m.spreads > l.maxFragmentSpreads || m.results > l.maxResults;
  }

  /** Each definition has the whole work budget (what was measured stays known). */
  newBudget(): void {
    this.work = 0;
  }

  private tooMuchWork(): boolean {
    return this.work > this.limits.maxCost * WORK_PER_COST;
  }

  /** Adds a set's selections to `into`: its fields, its inline fragments' and its spread fragments', once per fragment. */
  private collect(set: SelectionSetNode, level: Level, into: Map<string, Spelled>): void {
    for (const selection of set.selections) {
      if (++this.work > this.limits.maxCost * WORK_PER_COST) return;
      if (selection.kind === Kind.FIELD) {
        const name = selection.alias?.value ?? selection.name.value;
        let spelled = into.get(name);
        if (!spelled) into.set(name, (spelled = { sets: [], results: 0, aliased: selection.alias !== undefined }));
        if (selection.selectionSet && !spelled.sets.includes(selection.selectionSet)) spelled.sets.push(selection.selectionSet);
        spelled.results = Math.max(spelled.results, requestedResults(selection, this.variables));
        continue;
      }
      let condition: string | undefined;
      let selections: SelectionSetNode;
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        condition = selection.typeCondition?.name.value;
        selections = selection.selectionSet;
      } else {
        const name = selection.name.value;
        // graphql-js merges a fragment once per selection set, however often it is spread.
        const seen = level.visited.get(into) ?? new Set<string>();
        level.visited.set(into, seen);
        if (seen.has(name) || level.visited.get(level.common)?.has(name)) continue;
        seen.add(name);
        level.spreads++;
        const definition = this.fragments(name);
        if (!definition) continue;
        condition = definition.typeCondition.name.value;
        selections = definition.selectionSet;
      }
      const target = into === level.common && condition !== undefined && this.isObjectType?.(condition) ? this.branch(level, condition) : into;
      this.collect(selections, level, target);
    }
  }

  private branch(level: Level, typeName: string): Map<string, Spelled> {
    let own = level.byType.get(typeName);
    if (!own) level.byType.set(typeName, (own = new Map()));
    return own;
  }

  /** One resolved field: itself, what it asks for, and what its merged selection resolves. */
  private field(sets: readonly SelectionSetNode[], spelled: Spelled): Measure {
    const child = sets.length > 0 ? this.measure(sets) : zero();
    return { depth: child.depth + 1, aliases: child.aliases, cost: child.cost + 1, spreads: child.spreads, results: child.results + spelled.results };
  }
}

/** The aliased response names of a level's fields (those not already among `besides`). */
function aliasesOf(fields: ReadonlyMap<string, Spelled>, besides?: ReadonlyMap<string, Spelled>): number {
  let n = 0;
  for (const [name, spelled] of fields) if (spelled.aliased && !besides?.has(name)) n++;
  return n;
}

function add(m: Measure, child: Measure): Measure {
  m.depth = Math.max(m.depth, child.depth);
  m.aliases = Math.max(m.aliases, child.aliases);
  m.cost += child.cost;
  m.spreads = Math.max(m.spreads, child.spreads);
  m.results += child.results;
  return m;
}

/** Takes a common field's measure out again where an object type merges more into it (the maxima stay: they only grow). */
function subtract(m: Measure, child: Measure): void {
  m.cost -= child.cost;
  m.results -= child.results;
}

function larger(a: Measure, b: Measure): Measure {
  return { depth: Math.max(a.depth, b.depth), aliases: Math.max(a.aliases, b.aliases), cost: Math.max(a.cost, b.cost), spreads: Math.max(a.spreads, b.spreads), results: Math.max(a.results, b.results) };
}

/** The first limit a measure exceeds, as the message to answer with. */
export function limitExceeded(m: Measure, limits: QueryLimits): string | undefined {
  if (m.depth > limits.maxDepth) return `Query depth ${m.depth} exceeds the limit of ${limits.maxDepth}`;
  if (m.aliases > limits.maxAliases) return `Query uses more than the limit of ${limits.maxAliases} aliases in one selection set`;
  if (m.cost > limits.maxCost) return `Query selects more than the limit of ${limits.maxCost} fields`;
  if (m.spreads > limits.maxFragmentSpreads) return `Query spreads more than the limit of ${limits.maxFragmentSpreads} fragments in one selection set`;
  if (m.results > limits.maxResults) {
    return `Query asks for ${m.results} results (the count of every field it resolves that takes one, each alias counted), more than the limit of ${limits.maxResults} per request; ask for fewer, or page with the next cursor`;
  }
  return undefined;
}

/** Measures every operation and fragment of a document; the first limit exceeded, if any. */
export function checkDocument(document: DocumentNode, fragments: Fragments, limits: QueryLimits, isObjectType?: IsObjectType): { message: string; node: DocumentNode['definitions'][number] } | undefined {
  // One walk for every definition: a fragment measured on its own is then known where it is spread.
  const walker = new Walker(fragments, limits, undefined, isObjectType);
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION && definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
    walker.newBudget();
    const message = limitExceeded(walker.measure([definition.selectionSet]), limits);
    if (message) return { message, node: definition };
  }
  const merging = mergeComparisons(document, fragments, limits.maxMergeComparisons);
  if (merging.comparisons > limits.maxMergeComparisons) {
    const first = document.definitions[0]!;
    return {
      message: `Query spells ${merging.field} ${merging.spellings} times in one selection set (fragments merged in): checking that repeated fields merge takes more than the limit of ${limits.maxMergeComparisons} comparisons; select each field once per selection set`,
      node: first,
    };
  }
  return undefined;
}

/** The measure of one selection set, with the operation's variables when known (the `_entities` work count, the results asked for). */
export function measureSelection(set: SelectionSetNode, fragments: Fragments, limits: QueryLimits, variables?: Variables, isObjectType?: IsObjectType): Measure {
  return new Walker(fragments, limits, variables, isObjectType).measure([set]);
}
