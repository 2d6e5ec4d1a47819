/**
 * The generic entity routes of REST v2 and v3 (docs/contract.md §4): one set of handlers, shaped
 * per version by shapes.ts, calling the same services as the GraphQL resolvers.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AspectExistsError, ASPECT_EXISTS } from '../domain/errors.js';
import { parsePatchDocument } from '../domain/jsonPatch.js';
import { entityTypeNamed } from '../services/entityService.js';
import type { Services } from '../services/index.js';
import { boolParam, intParam, listParam, optionalBoolParam, stringParam, versionParam, type Query } from './params.js';
import type { BatchWritten } from '../services/entityService.js';
import { turnForLargeBody } from './bodyTurns.js';
import { aspectInputOf, aspectResponse, batchGetItemsOf, batchItemsOf, entityResponse, entityViewResponse, patchItemsOf, type ApiVersion } from './shapes.js';

interface EntityParams {
  entityName: string;
  urn: string;
  aspect: string;
}

export interface EntityRouteOptions {
  readonly services: Services;
  readonly version: ApiVersion;
  /** The server default for waiting on the search index (WRITE_WAIT_FOR_INDEX). */
  readonly writeWaitForIndex: boolean;
}

/**
 * DataHub's create-only refusal, completed with what exists and how to replace it:
 * `createIfNotExists` is a REST parameter, so only REST can say so.
 */
function explainCreateOnly(what: string, createOnlyIs: string) {
  return (err: unknown): never => {
    if (err instanceof AspectExistsError) {
      throw new AspectExistsError(`${ASPECT_EXISTS} ${what}; createIfNotExists=true (${createOnlyIs}) only creates, so send createIfNotExists=false to replace it.`);
    }
    throw err;
  };
}

/** One v3 item per entity written, with every aspect the request wrote for it. */
function writtenResponse(written: readonly BatchWritten[], q: Query): Array<Record<string, unknown>> {
  const withSystemMetadata = boolParam(q, 'systemMetadata', false);
  return written.map((w) => entityResponse('v3', w.urn, w.results.map((r) => [r.aspect, r]), withSystemMetadata));
}

export async function entityRoutes(app: FastifyInstance, options: EntityRouteOptions): Promise<void> {
  const { services, version } = options;
  const entities = services.entities;
  const params = (request: FastifyRequest) => request.params as EntityParams;
  const query = (request: FastifyRequest) => request.query as Query;
  const writeAsync = (q: Query) => optionalBoolParam(q, 'async') ?? !options.writeWaitForIndex;

  app.post('/entity/:entityName', async (request) => {
    const q = query(request);
    const type = entityTypeNamed(params(request).entityName);
    const items = batchItemsOf(version, request.body);
    await turnForLargeBody(request);
    const written = request.receipts.resultOf(
      await entities
        .batchUpsert(request.caller, type, items, {
          createOnly: boolParam(q, 'createIfNotExists', false),
          createEntityOnly: boolParam(q, 'createEntityIfNotExists', false),
          // DataHub's v3 batch create is an upsert that brings its entities into being (its SDK emits a
          // value on a dataset nothing has created yet); a single aspect's value endpoint still answers 404.
          createsEntity: version === 'v3',
          async: writeAsync(q),
        })
        .catch(explainCreateOnly('An aspect in this batch exists', 'as sent')),
    );
    return version === 'v3' ? writtenResponse(written, q) : written.map((w) => ({ urn: w.urn }));
  });

  if (version === 'v3') {
    // DataHub's entity-level PATCH, as its Python client sends it in OpenAPI mode.
    app.patch('/entity/:entityName', async (request) => {
      const q = query(request);
      const written = request.receipts.resultOf(await entities.batchPatch(request.caller, entityTypeNamed(params(request).entityName), patchItemsOf(request.body), { async: writeAsync(q) }));
      return writtenResponse(written, q);
    });

    app.post('/entity/:entityName/batchGet', async (request) => {
      const q = query(request);
      const views = await entities.batchGet(request.caller, entityTypeNamed(params(request).entityName), batchGetItemsOf(request.body));
      return views.map((view) => entityViewResponse('v3', view, boolParam(q, 'systemMetadata', false)));
    });
  }

  // Search (docs/contract.md §4) for searchable types; a database listing for the others.
  app.get('/entity/:entityName', async (request) => {
    const q = query(request);
    const type = entityTypeNamed(params(request).entityName);
    const page = await services.search.searchEntities(request.caller, type, {
      query: stringParam(q, 'query'),
      count: intParam(q, 'count'),
      scrollId: stringParam(q, 'scrollId') || undefined,
      sort: stringParam(q, 'sort') || undefined,
      sortOrder: stringParam(q, 'sortOrder') || undefined,
      aspects: listParam(q, 'aspects'),
    });
    const withSystemMetadata = boolParam(q, 'systemMetadata', false);
    return {
      ...(page.scrollId ? { scrollId: page.scrollId } : {}),
      entities: page.entities.map((e) => entityViewResponse(version, e, withSystemMetadata)),
    };
  });

  app.get('/entity/:entityName/:urn', async (request) => {
    const q = query(request);
    const { entityName, urn } = params(request);
    const aspects = listParam(q, 'aspects');
    const view = await entities.getEntity(request.caller, urn, { entityType: entityTypeNamed(entityName), ...(aspects ? { aspects } : {}) });
    return entityViewResponse(version, view, boolParam(q, 'systemMetadata', false));
  });

  app.delete('/entity/:entityName/:urn', async (request, reply) => {
    const { entityName, urn } = params(request);
    // What the delete would remove, and nothing removed (docs/contract.md §13).
    if (boolParam(query(request), 'dryRun', false)) return { dryRun: true, impact: await entities.previewDelete(request.caller, urn, { entityType: entityTypeNamed(entityName) }) };
    request.receipts.add(await entities.deleteEntity(request.caller, urn, { entityType: entityTypeNamed(entityName), async: writeAsync(query(request)) }));
    return reply.code(200).send();
  });

  app.get('/entity/:entityName/:urn/:aspect', async (request) => {
    const { entityName, urn, aspect } = params(request);
    const q = query(request);
    const asked = versionParam(q);
    // Version 0 is the latest; 1..n the earlier ones, oldest first (docs/contract.md §13).
    const value =
      asked === 0
        ? await entities.getAspect(request.caller, urn, aspect, entityTypeNamed(entityName))
        : await services.history.aspectVersion(request.caller, urn, aspect, asked, entityTypeNamed(entityName));
    return aspectResponse(version, urn, aspect, value, boolParam(q, 'systemMetadata', false));
  });

  app.post('/entity/:entityName/:urn/:aspect', async (request) => {
    const q = query(request);
    const { entityName, urn, aspect } = params(request);
    if (boolParam(q, 'dryRun', false)) {
      const options = { entityType: entityTypeNamed(entityName), createOnly: boolParam(q, 'createIfNotExists', true) };
      const impact = await entities.previewWrite(request.caller, urn, aspect, aspectInputOf(version, request.body), options).catch(explainCreateOnly(`The aspect is ${aspect} of ${urn}`, "this route's default"));
      return { dryRun: true, impact };
    }
    const result = request.receipts.resultOf(
      await entities
        .setAspect(request.caller, urn, aspect, aspectInputOf(version, request.body), {
          entityType: entityTypeNamed(entityName),
          createOnly: boolParam(q, 'createIfNotExists', true),
          async: writeAsync(q),
        })
        .catch(explainCreateOnly(`The aspect is ${aspect} of ${urn}`, "this route's default")),
    );
    return entityResponse(version, urn, [[aspect, result]], boolParam(q, 'systemMetadata', false));
  });

  app.patch('/entity/:entityName/:urn/:aspect', async (request) => {
    const q = query(request);
    const { entityName, urn, aspect } = params(request);
    const result = request.receipts.resultOf(
      await entities.patchAspect(request.caller, urn, aspect, parsePatchDocument(request.body), {
        entityType: entityTypeNamed(entityName),
        async: writeAsync(q),
      }),
    );
    return entityResponse(version, urn, [[aspect, result]], boolParam(q, 'systemMetadata', false));
  });

  app.delete('/entity/:entityName/:urn/:aspect', async (request, reply) => {
    const { entityName, urn, aspect } = params(request);
    request.receipts.add(await entities.deleteAspect(request.caller, urn, aspect, { entityType: entityTypeNamed(entityName), async: writeAsync(query(request)) }));
    return reply.code(200).send();
  });
}
