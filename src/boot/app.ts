/**
 * Builds the HTTP server: one Fastify instance carrying REST v2/v3 (under /openapi
 * and /gms/openapi), the evaluate route, health and, from the GraphQL module, the
 * subgraph. Everything here is wiring; behaviour lives in services/.
 */
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { Config } from '../platform/config.js';
import { GRAPHQL_PATHS, mountGraphQL } from '../graphql/server.js';
import type { Logger } from '../platform/logger.js';
import type { MetricsSource } from '../services/metricsScrape.js';
import { installAuthentication } from '../rest/authentication.js';
import { installExplainHeader } from '../rest/explainHeader.js';
import { installIndexStatusHeader } from '../rest/indexStatusHeader.js';
import { installSearchIndexHeader } from '../rest/searchIndexHeader.js';
import { datahubReadRoutes } from '../rest/datahubReadRoutes.js';
import { entityRoutes } from '../rest/entityRoutes.js';
import { errorSender, sendNoEndpoint } from '../rest/errors.js';
import { checkJsonTextNesting } from '../domain/textNesting.js';
import { installInputLimits } from '../rest/inputLimits.js';
import { parsesPlainly, stringifyRest } from '../rest/json.js';
import { API_DOCS_PATHS, apiDocsRoutes, registerOpenApi } from '../rest/openapi.js';
import { installResponseWriteTimeout } from '../rest/responseWriteTimeout.js';
import { metricsRoutes } from '../rest/metricsRoutes.js';
import { installRequestTelemetry } from '../rest/requestTelemetry.js';
import { recordRoutes } from '../rest/routeTable.js';
import { restliRoutes } from '../restli/routes.js';
import { SESSION_PATH, SIGN_OUT_PATH, sessionRoutes } from '../rest/sessionRoutes.js';
import { SIGN_IN_PATHS, signInRoutes } from '../rest/signInRoutes.js';
import { doneInTurn, installBodyTurns, noteBodyLength } from '../rest/bodyTurns.js';
import { backupRoutes, healthRoutes, isHealthPath, jobRoutes, systemUpdateRoutes, type HealthSource } from '../rest/systemRoutes.js';
import { historyRoutes } from '../rest/historyRoutes.js';
import { testRoutes } from '../rest/testRoutes.js';
import { complianceRoutes } from '../rest/complianceRoutes.js';
import { tokenRoutes } from '../rest/tokenRoutes.js';
import { policyRoutes } from '../rest/policyRoutes.js';
import { installTraceHeader } from '../rest/traceHeader.js';
import { traceRoutes } from '../rest/traceRoutes.js';
import { installServerShare } from '../rest/serverShare.js';
import type { Services } from '../services/index.js';
import { consoleRoutes, isConsolePath } from '../web/console.js';
import { datahubAppRoutes, isDataHubAppPath } from '../web/datahubApp.js';
import { DATAHUB_APP_GRAPHQL_PATH, datahubAppSessionRoutes } from '../rest/datahubAppSession.js';
import { graphiqlRoutes, isGraphiqlPath } from '../web/graphiql.js';
import { isSwaggerUiPath, swaggerUiRoutes } from '../web/swaggerUi.js';

export interface AppDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly services: Services;
  readonly health: HealthSource;
  /** What GET /metrics answers. */
  readonly metrics: MetricsSource;
  /** Shown in the OpenAPI document. */
  readonly version: string;
  /** Whether the search indexes are being built (X-Search-Index); absent when search is disabled. */
  readonly searchIndex?: { readonly rebuilding: boolean };
}

/** URL prefixes under which the REST API is served (docs/contract.md §4). */
export const REST_PREFIXES = ['/openapi', '/gms/openapi'];

const HEADERS_TIMEOUT_MS = 10_000;
const CONNECTIONS_CHECK_MS = 1000;
/** How long the unread body of a request answered early (401, 413, 429, ...) is discarded before the connection is closed. */
const REFUSED_BODY_GRACE_MS = 5000;

/**
 * A request refused before its body was read (authentication runs in onRequest) is
 * answered at once; Node then reads and discards the rest of the body to keep the
 * connection, for as long as the client keeps sending. A client that has not finished
 * within the grace period is disconnected. Closing at once instead would reset
 * connections whose client is still writing, often before it reads the answer.
 */
function discardRefusedBodies(app: FastifyInstance, graceMs: number): void {
  app.addHook('onResponse', async (request) => {
    const incoming = request.raw;
    if (incoming.complete) return;
    const socket = incoming.socket;
    const timer = setTimeout(() => {
      if (!incoming.complete) socket.destroy();
    }, graceMs);
    timer.unref();
    incoming.once('end', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });
}

/**
 * One of our route plugins, under its function's name. Fastify names a plugin that has
 * none by walking `require.cache` for the module exporting it, twice per registration
 * (about 40 here): a few milliseconds in a server, but 1.4 s of 11.6 s of CPU in a
 * profile of five suites under Jest, whose module cache is slow to walk (issue #43).
 */
function named<O extends object>(plugin: (app: FastifyInstance, options: O) => Promise<void>): FastifyPluginAsync<O> {
  const wrapped: FastifyPluginAsync<O> = (app, options) => plugin(app, options);
  return Object.assign(wrapped, { [Symbol.for('fastify.display-name')]: plugin.name });
}

/** The documentation pages, their files and the OpenAPI document: public, and not part of the REST API. */
const isDocumentationPath = (path: string): boolean => API_DOCS_PATHS.includes(path) || isSwaggerUiPath(path) || isGraphiqlPath(path);

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, services } = deps;
  const sendError = errorSender({ graphqlPaths: GRAPHQL_PATHS });
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    // A client has requestTimeoutMs to send a whole request (408 and closed beyond), at most
    // 10 s of it for the headers, checked every second: a body trickled a byte at a time no
    // longer holds a connection for minutes. No idle timeout on sockets: it would also cut
    // requests the server itself takes long to answer.
    requestTimeout: config.requestTimeoutMs,
    http: { headersTimeout: Math.min(HEADERS_TIMEOUT_MS, config.requestTimeoutMs), connectionsCheckingInterval: CONNECTIONS_CHECK_MS },
    // URNs in paths can be long; the default 100 characters per parameter is too short.
    routerOptions: { maxParamLength: 4096, ignoreTrailingSlash: true },
    // Fastify's own request lines are off: requestTelemetry.ts writes one access line per request.
    logController: new LogController({ disableRequestLogging: true }),
    // While closing, requests still arriving on open connections are served and told
    // `Connection: close` rather than refused (connectionDrain.ts).
    return503OnClosing: false,
    // Errors the router raises before any route (a bad percent-encoding, an overlong segment) get our body too.
    frameworkErrors: sendError,
    // X-Forwarded-* only from the configured reverse proxies (request.ip, .protocol, .host).
    trustProxy: config.trustedProxies.length > 0 ? [...config.trustedProxies] : false,
  });
  installRequestTelemetry(app, deps.log);
  discardRefusedBodies(app, Math.min(REFUSED_BODY_GRACE_MS, config.requestTimeoutMs));
  installResponseWriteTimeout(app, config.responseWriteTimeoutMs);
  recordRoutes(app);
  app.setReplySerializer((payload) => stringifyRest(payload));
  app.setErrorHandler(sendError);
  app.setNotFoundHandler((request, reply) => sendNoEndpoint(request, reply));
  installInputLimits(app);

  // JSON in, under every JSON media type DataHub clients send; anything else is 415.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json$/, { parseAs: 'string' }, (request, body, done) => {
    // Clients often send a JSON content type on bodiless DELETEs; there is nothing to parse.
    if (body === '' && request.method === 'DELETE') return done(null, undefined);
    const text = body as string;
    noteBodyLength(request, text.length);
    // The input limits' walk runs next, in the same turn otherwise (rest/bodyTurns.ts).
    const next = doneInTurn(request, done);
    // Deep nesting is refused before JSON.parse builds it (domain/textNesting.ts).
    try {
      checkJsonTextNesting(text, 'request body');
    } catch (err) {
      return next(err as Error, undefined);
    }
    if (!parsesPlainly(text)) return parseJson(request, text, next);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Fastify's parser says what is wrong, in its own error.
      return parseJson(request, text, next);
    }
    return next(null, parsed);
  });
  installBodyTurns(app);

  await app.register(helmet, { global: true });
  // Closed unless origins are configured: browsers on other origins get no CORS headers.
  await app.register(cors, { origin: config.corsOrigins.length > 0 ? [...config.corsOrigins] : false });
  await app.register(rateLimit, {
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    // Per principal: the token authentication resolved (this runs after it), however its header was spelled; else per client address.
    keyGenerator: (request) => (request.caller?.tokenId ? `token:${request.caller.tokenId}` : `ip:${request.ip}`),
    allowList: (request) => isHealthPath(request.url),
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      error: 'Too Many Requests',
      message: `Rate limit of ${context.max} requests per minute exceeded; retry in ${Math.ceil(context.ttl / 1000)} s`,
    }),
  });
  // Sign-in is browser and CLI plumbing (docs/security.md), not part of the REST API.
  await registerOpenApi(app, { version: deps.version, isHidden: (url) => isDocumentationPath(url) || isConsolePath(url) || GRAPHQL_PATHS.includes(url) || SIGN_IN_PATHS.includes(url) || url === SESSION_PATH || url === SIGN_OUT_PATH || isDataHubAppPath(url) });
  const signingIn = services.signIn !== null;
  installAuthentication(app, {
    enabled: config.authEnabled,
    tokens: services.tokens,
    publicPaths: (path) =>
      isHealthPath(path) ||
      isDocumentationPath(path) ||
      (config.consoleEnabled && isConsolePath(path)) ||
      (signingIn && SIGN_IN_PATHS.includes(path)) ||
      path === SIGN_OUT_PATH ||
      (isDataHubAppPath(path) && path !== DATAHUB_APP_GRAPHQL_PATH),
    identifiedOnPublicPaths: (path) => path === '/health',
    graphqlPaths: GRAPHQL_PATHS,
    failuresPerMinute: config.authFailuresPerMinute,
  });
  // After authentication: a request is held for its principal, known only then.
  installServerShare(app, config.principalShare);

  installIndexStatusHeader(app);
  if (deps.searchIndex) installSearchIndexHeader(app, deps.searchIndex);
  installTraceHeader(app);
  installExplainHeader(app);
  await app.register(named(healthRoutes), { health: deps.health });
  await app.register(named(metricsRoutes), { metrics: deps.metrics });
  await app.register(named(testRoutes), { services, writeWaitForIndex: config.writeWaitForIndex });
  for (const prefix of REST_PREFIXES) {
    for (const version of ['v2', 'v3'] as const) {
      await app.register(named(entityRoutes), { prefix: `${prefix}/${version}`, services, version, writeWaitForIndex: config.writeWaitForIndex });
      await app.register(named(datahubReadRoutes), { prefix: `${prefix}/${version}`, services, version });
    }
    await app.register(named(jobRoutes), { prefix: `${prefix}/v3`, services });
    await app.register(named(historyRoutes), { prefix: `${prefix}/v3`, services });
    await app.register(named(tokenRoutes), { prefix: `${prefix}/v3`, services });
    await app.register(named(policyRoutes), { prefix: `${prefix}/v3`, services });
    await app.register(named(systemUpdateRoutes), { prefix: `${prefix}/v3`, services });
    await app.register(named(backupRoutes), { prefix: `${prefix}/v3`, services });
    await app.register(named(complianceRoutes), { prefix: `${prefix}/v3`, services });
    await app.register(named(traceRoutes), { prefix: `${prefix}/v1`, services });
  }
  // DataHub's Rest.li dialect, at the root and under /gms as DataHub's clients address GMS.
  for (const prefix of ['', '/gms']) {
    await app.register(named(restliRoutes), { prefix, services, writeWaitForIndex: config.writeWaitForIndex, version: deps.version });
  }
  await mountGraphQL(app, { services, log: deps.log, introspection: config.graphqlIntrospection, urnNamespace: config.urnNamespace });
  await app.register(named(apiDocsRoutes));
  await app.register(named(swaggerUiRoutes));
  if (config.graphiqlEnabled) await app.register(named(graphiqlRoutes));
  await app.register(named(sessionRoutes), { sessions: services.sessions });
  if (services.signIn) await app.register(named(signInRoutes), { signIn: services.signIn, redirectUrl: config.oidc?.redirectUrl, consoleEnabled: config.consoleEnabled });
  if (config.consoleEnabled) await app.register(named(consoleRoutes), { graphqlUrl: config.consoleGraphqlUrl, signInProvider: services.signIn?.providerName ?? null });
  await app.register(named(datahubAppSessionRoutes), { tokens: services.tokens, sessions: services.sessions, signIn: services.signIn, redirectUrl: config.oidc?.redirectUrl });
  await app.register(named(datahubAppRoutes), { dir: config.datahubAppDir });
  return app;
}
