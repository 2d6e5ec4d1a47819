/**
 * Checks a request's GraphQL document against the limits (limits.ts) before Apollo
 * parses and validates it. It has to come first: graphql-js runs all validation rules
 * together over the document, so a rule that finds it over a limit cannot stop the
 * quadratic ones, and an error thrown from a rule becomes a 500 in Apollo. Parsing here
 * stops at the token limit, so a megabyte of junk costs no more than a document at the
 * limit, and a document that does not parse is answered here. Documents that passed are
 * remembered, so repeated queries are parsed once here.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, isObjectType, Kind, parse, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema } from 'graphql';
import { formatPath } from '../domain/inputLimits.js';
import { jsonNestingViolation } from '../domain/textNesting.js';
import { documentNestingViolation } from './documentNesting.js';
import { checkDocument, DEFAULT_QUERY_LIMITS, type IsObjectType, type QueryLimits } from './limits.js';

/** How many passed documents are remembered (their digests). */
const REMEMBERED = 1000;

/** Which type conditions name object types, from the schema the documents run against. */
export function objectTypesOf(schema: GraphQLSchema): IsObjectType {
  return (name) => isObjectType(schema.getType(name));
}

/**
 * The error to answer with when the document does not parse (over the token limit
 * included; as Apollo reports it, so that it need not parse it again) or is over a
 * limit; undefined when it is within them.
 */
export function documentLimitError(source: string, limits: QueryLimits = DEFAULT_QUERY_LIMITS, isObjectType?: IsObjectType): GraphQLError | undefined {
  const deep = documentNestingViolation(source, limits.maxNesting);
  if (deep) {
    return new GraphQLError(
      `Query nests braces, brackets and parentheses deeper than the limit of ${limits.maxNesting} levels (line ${deep.line}, column ${deep.column})`,
      { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
    );
  }
  let document: DocumentNode;
  try {
    document = parse(source, { maxTokens: limits.maxTokens });
  } catch (err) {
    if (!(err instanceof GraphQLError)) throw err;
    return new GraphQLError(err.message, { source: err.source, positions: err.positions, extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
  }
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  const problem = checkDocument(document, (name) => fragments.get(name), limits, isObjectType);
  return problem ? new GraphQLError(problem.message, { nodes: [problem.node], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }) : undefined;
}

/** A Fastify preHandler for the GraphQL routes: a 400 shaped as Apollo's parse and validation errors. */
export function documentGate(limits: QueryLimits = DEFAULT_QUERY_LIMITS, isObjectType?: IsObjectType) {
  const passed = new Set<string>();
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const holder = (request.method === 'GET' ? request.query : request.body) as { query?: unknown; variables?: unknown } | undefined;
    // A GET's variables are JSON text that Apollo parses; a POST's were measured with the body.
    if (typeof holder?.variables === 'string') {
      const deep = jsonNestingViolation(holder.variables);
      if (deep) {
        const field = `$${formatPath(deep.path)}`;
        const error = new GraphQLError(`variable ${field} ${deep.reason}`, { extensions: { code: 'BAD_USER_INPUT', field } });
        await reply.code(400).type('application/json').send({ errors: [error.toJSON()] });
        return;
      }
    }
    const source = holder?.query;
    if (typeof source !== 'string') return;
    const digest = createHash('sha256').update(source).digest('base64');
    if (passed.has(digest)) return;
    const error = documentLimitError(source, limits, isObjectType);
    if (error) {
      await reply.code(400).type('application/json').send({ errors: [error.toJSON()] });
      return;
    }
    if (passed.size >= REMEMBERED) passed.delete(passed.values().next().value!);
    passed.add(digest);
  };
}
