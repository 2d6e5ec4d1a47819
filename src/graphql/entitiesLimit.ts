/**
 * What the document alone does not show, checked once the operation and its variables
 * are known. `_entities` (federation) resolves a list of representations, usually passed
 * as a variable: 3,000 representations are one field in the document. This plugin
 * bounds the representations of a request and counts the fields selected on each
 * representation against the same field limit as every other query. Counts given as
 * variables are summed into the results budget here too (limits.ts).
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, isUnionType, Kind, type FieldNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';
import { quoteInput } from '../domain/inputLimits.js';
import { objectTypesOf } from './documentGate.js';
import { DEFAULT_QUERY_LIMITS, limitExceeded, measureSelection, type IsObjectType, type QueryLimits } from './limits.js';
import { RememberedMeasures } from './rememberedMeasures.js';

type Fragments = (name: string) => FragmentDefinitionNode | undefined;

/** The `_entities` fields of an operation's root selection (fragments merged in). */
function entitiesFields(set: SelectionSetNode, fragments: Fragments, seen = new Set<string>()): FieldNode[] {
  const out: FieldNode[] = [];
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value === '_entities') out.push(selection);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      out.push(...entitiesFields(selection.selectionSet, fragments, seen));
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = fragments(selection.name.value);
      if (fragment) out.push(...entitiesFields(fragment.selectionSet, fragments, seen));
    }
  }
  return out;
}

function representationCount(field: FieldNode, variables: Record<string, unknown>): number {
  const value = field.arguments?.find((a) => a.name.value === 'representations')?.value;
  if (!value) return 0;
  if (value.kind === Kind.LIST) return value.values.length;
  if (value.kind === Kind.VARIABLE) {
    const given = variables[value.name.value];
    // A single value is coerced to a list of one.
    return Array.isArray(given) ? given.length : given === undefined || given === null ? 0 : 1;
  }
  return 1;
}

/** The `__typename` of each representation as given: a string, or undefined when the representation is no object or has none. */
function typenames(field: FieldNode, variables: Record<string, unknown>): Array<{ readonly object: boolean; readonly typename: unknown }> {
  const value = field.arguments?.find((a) => a.name.value === 'representations')?.value;
  if (!value) return [];
  const ofNode = (node: ValueNode) =>
    node.kind === Kind.OBJECT
      ? { object: true, typename: ((f) => (f?.value.kind === Kind.STRING ? f.value.value : f === undefined ? undefined : null))(node.fields.find((f) => f.name.value === '__typename')) }
      : node.kind === Kind.VARIABLE
        ? ofValue(variables[node.name.value])
        : { object: false, typename: undefined };
  const ofValue = (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? { object: true, typename: (v as Record<string, unknown>).__typename } : { object: false, typename: undefined });
  if (value.kind === Kind.LIST) return value.values.map(ofNode);
  if (value.kind === Kind.VARIABLE) {
    const given = variables[value.name.value];
    return (Array.isArray(given) ? given : [given]).map(ofValue);
  }
  return [ofNode(value)];
}

/**
 * Why the representations cannot be resolved: one that is not an object, or whose
 * `__typename` is not an entity type of this subgraph (`Query`, `_Service`, anything).
 * Federation's resolver would fail on each such representation, one error (and one
 * stack trace in the log) per representation; this is the client's error, said once.
 */
export function representationsProblem(operation: OperationDefinitionNode, fragments: Fragments, variables: Record<string, unknown>, entityTypes: readonly string[]): string | undefined {
  for (const field of entitiesFields(operation.selectionSet, fragments)) {
    const given = typenames(field, variables);
    const bad = given.map((r, i) => ({ ...r, i })).filter((r) => !r.object || typeof r.typename !== 'string' || !entityTypes.includes(r.typename));
    if (bad.length === 0) continue;
    const first = bad[0]!;
    const what = !first.object
      ? `representations[${first.i}] is not an object`
      : typeof first.typename !== 'string'
        ? `representations[${first.i}].__typename is missing or not a string`
        : `representations[${first.i}].__typename ${quoteInput(first.typename)} is not an entity type of this subgraph`;
    return `${what} (${bad.length} of the ${given.length} representations cannot be resolved); entity types: ${entityTypes.join(', ')}`;
  }
  return undefined;
}

/** The entity types of a subgraph schema: the members of its `_Entity` union. */
export function entityTypeNames(schema: GraphQLSchema): string[] {
  const union = schema.getType('_Entity');
  return isUnionType(union) ? union.getTypes().map((t) => t.name).sort() : [];
}

/** Why the operation's `_entities` work is over the limits, or undefined. */
export function entitiesWorkProblem(
  operation: OperationDefinitionNode,
  fragments: Fragments,
  variables: Record<string, unknown>,
  limits: QueryLimits = DEFAULT_QUERY_LIMITS,
  isObjectType?: IsObjectType,
  costOf: (set: SelectionSetNode) => number = (set) => measureSelection(set, fragments, limits, undefined, isObjectType).cost,
): string | undefined {
  const fields = entitiesFields(operation.selectionSet, fragments);
  if (fields.length === 0) return undefined;
  const counts = fields.map((field) => representationCount(field, variables));
  const representations = counts.reduce((a, b) => a + b, 0);
  if (representations > limits.maxRepresentations) {
    return `_entities may resolve at most ${limits.maxRepresentations} representations per request; this request has ${representations}`;
  }
  let cost = costOf(operation.selectionSet);
  for (const [i, field] of fields.entries()) {
    const n = counts[i]!;
    const each = field.selectionSet ? costOf(field.selectionSet) : 0;
    // The document counted the selection once; it runs once per representation.
    cost += (n - 1) * each;
    if (cost > limits.maxCost) {
      return `Query selects more than the limit of ${limits.maxCost} fields: _entities selects ${each} fields on each of ${n} representations`;
    }
  }
  return undefined;
}

export function entitiesLimitPlugin(limits: QueryLimits = DEFAULT_QUERY_LIMITS): ApolloServerPlugin {
  const remembered = new RememberedMeasures(limits);
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, request, schema }) {
          if (!operation) return;
          const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
          const variables = request.variables ?? {};
          const isObjectType = objectTypesOf(schema);
          const fragmentNamed = (n: string) => fragments.get(n);
          const problem =
            limitExceeded(remembered.measure(document, operation, fragmentNamed, variables, isObjectType), limits) ??
            entitiesWorkProblem(operation, fragmentNamed, variables, limits, isObjectType, (set) => remembered.cost(set, fragmentNamed, isObjectType)) ??
            representationsProblem(operation, fragmentNamed, variables, entityTypeNames(schema));
          if (problem) throw new GraphQLError(problem, { nodes: [operation], extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
        },
      };
    },
  };
}
