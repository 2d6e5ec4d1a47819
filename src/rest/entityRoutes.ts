/**
 * The generic entity routes of REST v2 and v3 (docs/contract.md §4): one set of handlers, shaped
 * per version by shapes.ts, calling the same services as the GraphQL resolvers.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AspectExistsError, ASPECT_EXISTS } from '../domain/errors.js';
import { parsePatchDocument } from '../domain/jsonPatch.js';
import { parseUrnOfType } from '../domain/urn.js';
import { entityDeletePlan, entityPlan, itemsOf, planOf, setChange, type AspectInput } from '../domain/writes/plan.js';
import { entityTypeNamed } from '../services/entityService.js';
import type { Services } from '../services/index.js';
import { onlyEntity, type EntityOutcome } from '../services/writes/writeService.js';
import { boolParam, intParam, listParam, optionalBoolParam, stringParam, versionParam, type Query } from './params.js';
import { turnForLargeBody } from './bodyTurns.js';
import { explained } from './explainHeader.js';
import { aspectInputOf, aspectResponse, batchGetItemsOf, batchItemsOf, entityResponse, entityViewResponse, patchItemsOf, type ApiVersion } from './shapes.js';
import { expectedVersionOf, setEntityTag } from './versionHeaders.js';

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
function writtenResponse(written: readonly EntityOutcome[], q: Query): Array<Record<string, unknown>> {
  const withSystemMetadata = boolParam(q, 'systemMetadata', false);
  return written.map((w) => entityResponse('v3', w.urn, w.results.map((r) => [r.aspect, r]), withSystemMetadata));
}

/** The version an aspect write names (If-Match, If-Version-Match headers, or the v3 envelope's), added to what the body carries. */
function withExpectedVersion(request: FastifyRequest, input: AspectInput): AspectInput {
  const expected = input.ifVersionMatch ?? expectedVersionOf(request.headers);
  return expected === undefined ? input : { ...input, ifVersionMatch: expected };
}

/** An answer about one aspect carries its version as an ETag, which If-Match sends back. */
function tagged(reply: FastifyReply, systemMetadata: Record<string, unknown> | null | undefined): void {
  setEntityTag(reply, systemMetadata);
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
    const createOnly = boolParam(q, 'createIfNotExists', false);
    const items = batchItemsOf(version, request.body);
    await turnForLargeBody(request);
    const plan = planOf(
      // DataHub's v3 batch create is an upsert that brings its entities into being (its SDK emits a value on a
      // dataset nothing has created yet); a single aspect's value endpoint still answers 404.
      itemsOf(items, (item) => ({ urn: parseUrnOfType(item.urn, type), createsEntity: version === 'v3', changes: [...item.aspects].map(([aspect, input]) => setChange(aspect, input, createOnly)) })),
      { createEntityOnly: boolParam(q, 'createEntityIfNotExists', false) },
    );
    const written = request.receipts.resultOf(
      await services.writes.submit(request.caller, plan, { async: writeAsync(q) }).catch(explainCreateOnly('An aspect in this batch exists', 'as sent')),
    );
    return version === 'v3' ? writtenResponse(written.entities, q) : written.entities.map((w) => ({ urn: w.urn }));
  });

  if (version === 'v3') {
    // DataHub's entity-level PATCH, as its Python client sends it in OpenAPI mode.
    app.patch('/entity/:entityName', async (request) => {
      const q = query(request);
      const type = entityTypeNamed(params(request).entityName);
      const plan = planOf(
        itemsOf(patchItemsOf(request.body), (item) => ({
          urn: parseUrnOfType(item.urn, type),
          changes: [...item.aspects].map(([aspect, input]) => ({
            op: 'patch' as const,
            aspect,
            patches: input.patches,
            ...(input.systemMetadata ? { systemMetadata: input.systemMetadata } : {}),
            ...(input.ifVersionMatch !== undefined ? { ifVersionMatch: input.ifVersionMatch } : {}),
          })),
        })),
      );
      const written = request.receipts.resultOf(await services.writes.submit(request.caller, plan, { async: writeAsync(q) }));
      return writtenResponse(written.entities, q);
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
    const page = explained(request, await services.search.searchEntities(request.caller, type, {
      query: stringParam(q, 'query'),
      count: intParam(q, 'count'),
      scrollId: stringParam(q, 'scrollId') || undefined,
      sort: stringParam(q, 'sort') || undefined,
      sortOrder: stringParam(q, 'sortOrder') || undefined,
      aspects: listParam(q, 'aspects'),
    }));
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
    const plan = entityDeletePlan(parseUrnOfType(urn, entityTypeNamed(entityName)));
    request.receipts.add((await services.writes.submit(request.caller, plan, { async: writeAsync(query(request)) })).receipt);
    return reply.code(200).send();
  });

  app.get('/entity/:entityName/:urn/:aspect', async (request, reply) => {
    const { entityName, urn, aspect } = params(request);
    const q = query(request);
    const asked = versionParam(q);
    // Version 0 is the latest; 1..n the earlier ones, oldest first (docs/contract.md §13).
    const value =
      asked === 0
        ? await entities.getAspect(request.caller, urn, aspect, entityTypeNamed(entityName))
        : await services.history.aspectVersion(request.caller, urn, aspect, asked, entityTypeNamed(entityName));
    if (asked === 0) tagged(reply, value.systemMetadata);
    return aspectResponse(version, urn, aspect, value, boolParam(q, 'systemMetadata', false));
  });

  app.post('/entity/:entityName/:urn/:aspect', async (request, reply) => {
    const q = query(request);
    const { entityName, urn, aspect } = params(request);
    const input = withExpectedVersion(request, aspectInputOf(version, request.body));
    const plan = entityPlan(parseUrnOfType(urn, entityTypeNamed(entityName)), [setChange(aspect, input, boolParam(q, 'createIfNotExists', true))]);
    if (boolParam(q, 'dryRun', false)) {
      const { impact, outcome } = await services.writes.preview(request.caller, plan).catch(explainCreateOnly(`The aspect is ${aspect} of ${urn}`, "this route's default"));
      // A definition's dry run also says which breaking changes break stored values, and what a migration would do.
      const report = onlyEntity(outcome).reports[aspect];
      return { dryRun: true, impact, ...(report ? { compatibility: report } : {}) };
    }
    const written = request.receipts.resultOf(
      await services.writes.submit(request.caller, plan, { async: writeAsync(q) }).catch(explainCreateOnly(`The aspect is ${aspect} of ${urn}`, "this route's default")),
    );
    const result = onlyEntity(written).results[0]!;
    tagged(reply, result.systemMetadata);
    return entityResponse(version, urn, [[aspect, result]], boolParam(q, 'systemMetadata', false));
  });

  app.patch('/entity/:entityName/:urn/:aspect', async (request, reply) => {
    const q = query(request);
    const { entityName, urn, aspect } = params(request);
    const expected = expectedVersionOf(request.headers);
    const change = { op: 'patch' as const, aspect, patches: [parsePatchDocument(request.body)], ...(expected !== undefined ? { ifVersionMatch: expected } : {}) };
    const written = request.receipts.resultOf(await services.writes.submit(request.caller, entityPlan(parseUrnOfType(urn, entityTypeNamed(entityName)), [change]), { async: writeAsync(q) }));
    const result = onlyEntity(written).results[0]!;
    tagged(reply, result.systemMetadata);
    return entityResponse(version, urn, [[aspect, result]], boolParam(q, 'systemMetadata', false));
  });

  app.delete('/entity/:entityName/:urn/:aspect', async (request, reply) => {
    const { entityName, urn, aspect } = params(request);
    const plan = entityPlan(parseUrnOfType(urn, entityTypeNamed(entityName)), [{ op: 'delete', aspect }]);
    request.receipts.add((await services.writes.submit(request.caller, plan, { async: writeAsync(query(request)) })).receipt);
    return reply.code(200).send();
  });
}
