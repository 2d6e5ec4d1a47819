/**
 * The operation plugin's walks (entitiesLimit.ts), remembered. Apollo keeps each parsed
 * document in its document store, so a repeated query brings back the same operation
 * node, and its measure depends on the request only through the counts the walk reads
 * from the variables (`count: $n`, `{count: $n}`, an input object given whole as `$i`).
 * The measure is kept per operation node and those counts: DataHub's app sends the same
 * few documents all day, and walking its search query took 1.6 ms of each request.
 */
import { Kind, visit, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { measureSelection, type Fragments, type IsObjectType, type Measure, type QueryLimits, type Variables } from './limits.js';

/** Counts per operation kept at most (a client paging with every count there is gets walked afresh past it). */
const KEPT_PER_OPERATION = 64;

/** The variables a walk may read counts from: those requestedResults (limits.ts) looks at. */
function countVariables(document: DocumentNode): readonly string[] {
  const names = new Set<string>();
  visit(document, {
    Argument(argument) {
      const value = argument.value;
      if (value.kind === Kind.VARIABLE) names.add(value.name.value);
      else if (value.kind === Kind.OBJECT) {
        const count = value.fields.find((f) => f.name.value === 'count')?.value;
        if (count?.kind === Kind.VARIABLE) names.add(count.name.value);
      }
    },
  });
  return [...names];
}

/** What those variables hold as far as a walk can see: a number, or an object's count (told apart). */
function countKey(names: readonly string[], variables: Variables): string {
  return names
    .map((name) => {
      const given = variables[name];
      if (typeof given === 'number') return `n${given}`;
      const count = given !== null && typeof given === 'object' ? (given as Record<string, unknown>).count : undefined;
      return typeof count === 'number' ? `o${count}` : '-';
    })
    .join(',');
}

export class RememberedMeasures {
  private readonly names = new WeakMap<DocumentNode, readonly string[]>();
  private readonly measures = new WeakMap<OperationDefinitionNode, Map<string, Measure>>();
  private readonly costs = new WeakMap<SelectionSetNode, number>();

  constructor(private readonly limits: QueryLimits) {}

  /** The operation's measure with these variables. */
  measure(document: DocumentNode, operation: OperationDefinitionNode, fragments: Fragments, variables: Variables, isObjectType: IsObjectType): Measure {
    let names = this.names.get(document);
    if (!names) this.names.set(document, (names = countVariables(document)));
    const key = countKey(names, variables);
    let byCounts = this.measures.get(operation);
    if (!byCounts) this.measures.set(operation, (byCounts = new Map()));
    let measure = byCounts.get(key);
    if (!measure) {
      measure = measureSelection(operation.selectionSet, fragments, this.limits, variables, isObjectType);
      if (byCounts.size >= KEPT_PER_OPERATION) byCounts.clear();
      byCounts.set(key, measure);
    }
    return measure;
  }

  /** The fields a selection set resolves (no variables: counts play no part in it). */
  cost(set: SelectionSetNode, fragments: Fragments, isObjectType: IsObjectType | undefined): number {
    let cost = this.costs.get(set);
    if (cost === undefined) this.costs.set(set, (cost = measureSelection(set, fragments, this.limits, undefined, isObjectType).cost));
    return cost;
  }
}
