/**
 * Builds the HTTP server: one Fastify instance carrying REST v2/v3 (under /openapi
 * and /gms/openapi), the evaluate route, health and, from the GraphQL module, the
 * subgraph. Everything here is wiring; behaviour lives in services/.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { LOCAL_CALLER } from './rest/caller.js';
import { entityRoutes } from './rest/entityRoutes.js';
import { sendError, sendNoEndpoint } from './rest/errors.js';
import { stringifyRest } from './rest/json.js';
import { healthRoutes, jobRoutes, systemUpdateRoutes, type HealthSource } from './rest/systemRoutes.js';
import type { Services } from './services/index.js';

export interface AppDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly services: Services;
  readonly health: HealthSource;
}

/** URL prefixes under which the REST API is served (SPEC 4). */
export const REST_PREFIXES = ['/openapi', '/gms/openapi'];

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, services } = deps;
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    // URNs in paths can be long; the default 100 characters per parameter is too short.
    routerOptions: { maxParamLength: 4096, ignoreTrailingSlash: true },
  });
  app.setReplySerializer((payload) => stringifyRest(payload));
  app.setErrorHandler((err, request, reply) => sendError(err, request, reply));
  app.setNotFoundHandler((request, reply) => sendNoEndpoint(request, reply));

  // JSON in, under every JSON media type DataHub clients send; anything else is 415.
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(/^application\/([\w.+-]+\+)?json$/, { parseAs: 'string' }, parseJson);

  app.decorateRequest('caller', null as never);
  app.addHook('onRequest', async (request) => {
    request.caller = LOCAL_CALLER;
  });

  await app.register(healthRoutes, { health: deps.health });
  for (const prefix of REST_PREFIXES) {
    for (const version of ['v2', 'v3'] as const) {
      await app.register(entityRoutes, { prefix: `${prefix}/${version}`, services, version, writeWaitForIndex: config.writeWaitForIndex });
    }
    await app.register(jobRoutes, { prefix: `${prefix}/v3`, services });
    await app.register(systemUpdateRoutes, { prefix: `${prefix}/v3`, services });
  }
  return app;
}
