/**
 * The input limits of docs/contract.md §12 on what a GraphQL request decodes to: the variables (whether
 * they came in a POST body or a GET query string) and the literals written inline in
 * the document. Refused as BAD_USER_INPUT naming the variable or argument path,
 * before anything runs. The rules are domain/inputLimits.ts.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { BREAK, GraphQLError, Kind, type ASTNode, type ValidationRule } from 'graphql';
import { findInputViolation, formatPath, INPUT_LIMITS, textViolation, type PathSegment } from '../domain/inputLimits.js';

function badInput(message: string, field: string, nodes?: readonly ASTNode[]): GraphQLError {
  return new GraphQLError(message, { ...(nodes ? { nodes } : {}), extensions: { code: 'BAD_USER_INPUT', field, http: { status: 400 } } });
}

/** Checks the variables after the operation is known and before they are coerced or used. */
export const variableLimitsPlugin: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async didResolveOperation({ request }) {
        const found = findInputViolation(request.variables ?? {});
        if (!found) return;
        const field = `$${formatPath(found.path)}`;
        throw badInput(`variable ${field} ${found.reason}`, field);
      },
    };
  },
};

/** The argument path of a literal: `input.allowedValues[0].stringValue`. */
function argumentPath(root: unknown, keys: ReadonlyArray<string | number>): PathSegment[] {
  const segments: PathSegment[] = [];
  let node: unknown = root;
  let owner: unknown;
  for (const key of keys) {
    if (!Array.isArray(node)) owner = node;
    node = (node as Record<string | number, unknown>)[key];
    const kind = (node as { kind?: string } | undefined)?.kind;
    if (kind === Kind.ARGUMENT || kind === Kind.OBJECT_FIELD) segments.push((node as { name: { value: string } }).name.value);
    else if (typeof key === 'number' && (owner as { kind?: string } | undefined)?.kind === Kind.LIST) segments.push(key);
  }
  return segments;
}

/** Refuses string literals holding U+0000 or a lone surrogate, and literals nested deeper than the limit. */
export const literalLimitsRule: ValidationRule = (context) => {
  let depth = 0;
  const document = context.getDocument();
  const container = {
    enter(node: ASTNode, _key: unknown, _parent: unknown, path: ReadonlyArray<string | number>) {
      depth++;
      if (depth <= INPUT_LIMITS.nestingDepth) return undefined;
      const field = formatPath(argumentPath(document, path));
      context.reportError(badInput(`argument ${field} is nested deeper than the limit of ${INPUT_LIMITS.nestingDepth} levels of lists and objects; flatten the value`, field, [node]));
      return BREAK;
    },
    leave() {
      depth--;
    },
  };
  return {
    ListValue: container,
    ObjectValue: container,
    StringValue(node, _key, _parent, path) {
      const reason = textViolation(node.value);
      if (!reason) return;
      const field = formatPath(argumentPath(document, path));
      context.reportError(badInput(`argument ${field} ${reason}`, field, [node]));
    },
  };
};
