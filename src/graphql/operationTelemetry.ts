/**
 * GraphQL operations in /metrics (latency, count, errors, by operation name and type)
 * and, while tracing is on, as spans: one per operation, under the request's HTTP
 * span, and one per root field's resolver (a query's or mutation's top-level fields,
 * where the work is). The fields under them mostly read what those resolved; the
 * statements they do make (batched reads) appear under the operation's span. A span
 * per nested field would be thousands for one page of search results.
 *
 * Operation names come from the client's document, so the label is bounded: a name is
 * cut at 64 characters and, past 500 distinct names, counted as `(other)`.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import { graphqlOperationDuration, graphqlOperationErrors } from '../telemetry/metrics.js';
import { activeSpan, failSpan, inSpan, SpanKind } from '../telemetry/tracing.js';
import type { GraphQLContext } from './context.js';

const MAX_NAME = 64;
const MAX_NAMES = 500;
/** Documents that never parse or validate. */
const UNRESOLVED = { operation: '(unresolved)', type: 'unknown' };

const knownLabels = new Map<string, { operation: string; type: string }>();

function labelsOf(name: string | null | undefined, type: string): { operation: string; type: string } {
  const operation = name ? name.slice(0, MAX_NAME) : '(anonymous)';
  const key = `${type} ${operation}`;
  let labels = knownLabels.get(key);
  if (labels === undefined) {
    labels = knownLabels.size < MAX_NAMES ? { operation, type } : { operation: '(other)', type };
    if (knownLabels.size < MAX_NAMES) knownLabels.set(key, labels);
  }
  return labels;
}

/** Counts each operation; names the operation's span (GRAPHQL_SPAN, made around the handler) once the document is resolved. */
export function operationTelemetryPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      const started = performance.now();
      let labels = UNRESOLVED;
      let failed = false;
      return {
        async didResolveOperation({ operationName, operation }) {
          labels = labelsOf(operationName, operation?.operation ?? 'unknown');
          const span = activeSpan();
          span?.updateName(`${labels.type} ${labels.operation}`);
          span?.setAttributes({ 'graphql.operation.type': labels.type, 'graphql.operation.name': labels.operation });
        },
        async didEncounterErrors({ errors }) {
          failed = true;
          const span = activeSpan();
          if (span) failSpan(span, errors[0]);
        },
        async willSendResponse() {
          graphqlOperationDuration.observe(labels, (performance.now() - started) / 1000);
          if (failed) graphqlOperationErrors.inc(labels);
        },
      };
    },
  };
}

/** The name the operation's span starts with, before its document is resolved. */
export const GRAPHQL_SPAN = 'graphql operation';

/** Runs one GraphQL request (its handler) inside the operation's span. Only while tracing is on. */
export function inOperationSpan<T>(run: () => T | Promise<T>): Promise<T> {
  return inSpan(GRAPHQL_SPAN, SpanKind.INTERNAL, {}, async () => run());
}

/** Wraps the resolvers of the root fields (Query, Mutation) in spans. Only while tracing is on. */
export function traceRootResolvers(schema: GraphQLSchema): void {
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve ?? defaultFieldResolver;
      const name = `resolve ${type.name}.${field.name}`;
      field.resolve = (source, args, context, info) =>
        inSpan(name, SpanKind.INTERNAL, { 'graphql.field.path': `${type.name}.${field.name}` }, async () => resolve(source, args, context, info));
    }
  }
}
