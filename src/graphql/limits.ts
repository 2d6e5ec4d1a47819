/**
 * Validation rules bounding what one GraphQL document may ask for: selection depth,
 * aliases, and a cost (fields selected after expanding fragments). A document over a
 * limit is rejected before execution with the limit named.
 */
import { GraphQLError, Kind, type ASTVisitor, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';

export interface QueryLimits {
  readonly maxDepth: number;
  readonly maxAliases: number;
  readonly maxCost: number;
}

export const DEFAULT_QUERY_LIMITS: QueryLimits = { maxDepth: 15, maxAliases: 50, maxCost: 5000 };

interface Measure {
  depth: number;
  aliases: number;
  cost: number;
}

function measure(set: SelectionSetNode, fragments: (name: string) => FragmentDefinitionNode | null | undefined, seen: Set<string>, budget: Measure): Measure {
  let depth = 0;
  let aliases = 0;
  let cost = 0;
  for (const selection of set.selections) {
    let child: Measure = { depth: 0, aliases: 0, cost: 0 };
    let own = 0;
    if (selection.kind === Kind.FIELD) {
      own = 1;
      if (selection.alias) aliases++;
      if (selection.selectionSet) {
        child = measure(selection.selectionSet, fragments, seen, budget);
        child.depth++;
      }
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      child = measure(selection.selectionSet, fragments, seen, budget);
    } else {
      const name = selection.name.value;
      const fragment = fragments(name);
      // A fragment spread twice on one path is a cycle (reported by graphql's own rule).
      if (!fragment || seen.has(name)) continue;
      seen.add(name);
      child = measure(fragment.selectionSet, fragments, seen, budget);
      seen.delete(name);
    }
    depth = Math.max(depth, child.depth + (selection.kind === Kind.FIELD && !selection.selectionSet ? 1 : 0));
    aliases += child.aliases;
    cost += own + child.cost;
    // Stop early on pathological documents instead of walking them whole.
    if (cost > budget.cost || aliases > budget.aliases) break;
  }
  return { depth, aliases, cost };
}

export function queryLimitsRule(limits: QueryLimits = DEFAULT_QUERY_LIMITS): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      const m = measure(node.selectionSet, (n) => context.getFragment(n), new Set(), { depth: limits.maxDepth, aliases: limits.maxAliases, cost: limits.maxCost });
      if (m.depth > limits.maxDepth) context.reportError(new GraphQLError(`Query depth ${m.depth} exceeds the limit of ${limits.maxDepth}`, { nodes: [node] }));
      if (m.aliases > limits.maxAliases) context.reportError(new GraphQLError(`Query uses more than the limit of ${limits.maxAliases} aliases`, { nodes: [node] }));
      if (m.cost > limits.maxCost) context.reportError(new GraphQLError(`Query selects more than the limit of ${limits.maxCost} fields`, { nodes: [node] }));
    },
  });
}
