/**
 * Mounts the Apollo subgraph on the Fastify server at /api/graphql and /graphql,
 * with production hardening: CSRF prevention, introspection by configuration, query
 * limits (document size and shape, `_entities` work), a smaller body limit, and no stack
 * traces in responses.
 */
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyInstance } from 'fastify';
import type { UrnNamespace } from '../domain/typeUrns.js';
import type { Logger } from '../platform/logger.js';
import type { Services } from '../services/index.js';
import type { GraphQLContext } from './context.js';
import { createErrorFormatter, errorLogPlugin } from './errors.js';
import { documentGate, objectTypesOf } from './documentGate.js';
import { entitiesLimitPlugin } from './entitiesLimit.js';
import { completeListsInTurns } from './listTurns.js';
import { literalLimitsRule, variableLimitsPlugin } from './inputLimits.js';
import { DEFAULT_QUERY_LIMITS } from './limits.js';
import { DATAHUB_APP_GRAPHQL_PATH } from '../rest/datahubAppSession.js';
import { createLoaders } from './loaders.js';
import { inOperationSpan, operationTelemetryPlugin, traceRootResolvers } from './operationTelemetry.js';
import { buildSchema } from './schema.js';
import { tracing } from '../telemetry/tracing.js';
import { stringifyInTurns } from '../platform/jsonInTurns.js';

/**
 * DataHub's clients post to `{server}/api/graphql`, where server may end in `/gms`; its web
 * app to `/api/v2/graphql` under the path it is served at (rest/datahubAppSession.ts).
 */
export const GRAPHQL_PATHS = ['/api/graphql', '/gms/api/graphql', '/graphql', '/api/v2/graphql', DATAHUB_APP_GRAPHQL_PATH];

/**
 * Copies what resolvers put in `context.extensions` into the response's `extensions`,
 * and, when the request wrote, whether its writes were indexed (docs/contract.md §12).
 */
const responseExtensionsPlugin: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response, contextValue }) {
        const indexStatus = contextValue.receipts.receipt.indexStatus;
        if (indexStatus) contextValue.extensions.indexStatus = indexStatus;
        if (response.body.kind !== 'single' || Object.keys(contextValue.extensions).length === 0) return;
        response.body.singleResult.extensions = { ...response.body.singleResult.extensions, ...contextValue.extensions };
      },
    };
  },
};
const GRAPHQL_BODY_LIMIT = 1024 * 1024;

export interface GraphQLOptions {
  readonly services: Services;
  readonly log: Logger;
  readonly introspection: boolean;
  /** The namespace the schema's type URNs and qualified names are written in (URN_NAMESPACE). */
  readonly urnNamespace: UrnNamespace;
}

export async function mountGraphQL(app: FastifyInstance, options: GraphQLOptions): Promise<ApolloServer<GraphQLContext>> {
  const schema = await buildSchema({ log: options.log });
  if (tracing()) traceRootResolvers(schema);
  completeListsInTurns(schema);
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    introspection: options.introspection,
    csrfPrevention: true,
    // The server's own shutdown (boot/start.ts, connectionDrain.ts) drains requests; Apollo's
    // signal handlers would close Fastify beside it and cut keep-alive connections.
    stopOnTerminationSignals: false,
    includeStacktraceInErrorResponses: false,
    // Token-bounded parsing: a document of junk tokens is refused in time linear in the bound.
    // The other document limits are checked before Apollo sees the request (documentGate).
    parseOptions: { maxTokens: DEFAULT_QUERY_LIMITS.maxTokens },
    // Literal values' nesting and characters (docs/contract.md §12), linear in the document.
    validationRules: [literalLimitsRule],
    formatError: createErrorFormatter(),
    // Apollo's own is JSON.stringify (plus a newline): a megabyte's answer in one run of the event loop.
    stringifyResult: async (result) => `${await stringifyInTurns(result)}\n`,
    // Inline traces (ftv1) would expose resolver timings to any caller; off until a router needs them.
    // Apollo's landing page loads Apollo Sandbox from a CDN; the explorer at /api/graphiql works offline.
    // Cache hints: nothing here sets them and no cache reads them, but Apollo's default
    // cache-control plugin wraps every field resolver to compute them (BENCHMARKS.md, "Where the time goes").
    plugins: [fastifyApolloDrainPlugin(app), ApolloServerPluginInlineTraceDisabled(), ApolloServerPluginLandingPageDisabled(), ApolloServerPluginCacheControlDisabled(), responseExtensionsPlugin, variableLimitsPlugin, entitiesLimitPlugin(), operationTelemetryPlugin(), errorLogPlugin(options.log)],
  });
  await apollo.start();
  const apolloHandler = fastifyApolloHandler(apollo, {
    context: async (request) => ({
      caller: request.caller,
      services: options.services,
      loaders: createLoaders(options.services, request.caller),
      extensions: {},
      receipts: request.receipts,
      engineRequests: request.engineRequests,
      urnNamespace: options.urnNamespace,
    }),
  });
  // While tracing, each request runs inside its operation's span (named once its document is resolved).
  const handler: typeof apolloHandler = tracing()
    ? function (request, reply) {
        return inOperationSpan(() => apolloHandler.call(this, request, reply));
      }
    : apolloHandler;
  const checkDocumentFirst = documentGate(DEFAULT_QUERY_LIMITS, objectTypesOf(schema));
  for (const url of GRAPHQL_PATHS) {
    app.route({ url, method: ['GET', 'POST', 'OPTIONS'], handler, preHandler: checkDocumentFirst, bodyLimit: GRAPHQL_BODY_LIMIT });
  }
  return apollo;
}
