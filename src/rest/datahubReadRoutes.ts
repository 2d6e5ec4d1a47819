/**
 * The OpenAPI reads DataHub's Python client makes besides batchGet
 * (docs/datahub-compatibility.md): `get_entities_v2` (`POST /openapi/v2/entity/batch/{type}`)
 * and `scroll_entities` (`POST /openapi/v3/entity/scroll` across types, and
 * `/openapi/v3/entity/{type}/scroll`). Thin adapters onto the entity and search services;
 * only the shapes are DataHub's.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseShape } from '../domain/shapes/shape.js';
import { entityTypeNamed } from '../services/entityService.js';
import type { Services } from '../services/index.js';
import { batchReadV2Shape, scrollBodyShape, type ScrollBody } from './bodies/datahubBatches.js';
import { explained } from './explainHeader.js';
import { boolParam, intParam, stringParam, type Query } from './params.js';
import { entityViewResponse, type ApiVersion } from './shapes.js';

export interface DataHubReadRouteOptions {
  readonly services: Services;
  readonly version: ApiVersion;
}

/** DataHub's filter criteria as the search service's OR of ANDs; `value` is the older single value. */
function orFiltersOf(filter: ScrollBody['filter']) {
  return (filter?.or ?? []).map((group) => ({
    and: (group.and ?? []).map((c) => ({
      field: c.field,
      values: c.values ?? (c.value !== null && c.value !== undefined ? [c.value] : null),
      condition: c.condition ?? null,
      negated: c.negated ?? null,
    })),
  }));
}

export async function datahubReadRoutes(app: FastifyInstance, options: DataHubReadRouteOptions): Promise<void> {
  const { services, version } = options;
  const query = (request: FastifyRequest) => request.query as Query;

  if (version === 'v2') {
    app.post('/entity/batch/:entityName', async (request) => {
      const type = entityTypeNamed((request.params as { entityName: string }).entityName);
      const body = parseShape(batchReadV2Shape, request.body, 'request body');
      const aspects = body.aspectNames ?? [];
      const views = await services.entities.batchGet(request.caller, type, body.urns.map((urn) => ({ urn, aspects })));
      return { entities: views.map((view) => entityViewResponse('v2', view, body.withSystemMetadata === true)) };
    });
    return;
  }

  const scroll = async (request: FastifyRequest, types: string[]) => {
    const q = query(request);
    const body = parseShape(scrollBodyShape, request.body ?? {}, 'request body');
    const page = explained(request, await services.search.scrollEntities(request.caller, {
      types: types.length > 0 ? types : [...(body.entityTypes ?? [])],
      query: stringParam(q, 'query') ?? null,
      count: intParam(q, 'count') ?? null,
      scrollId: stringParam(q, 'scrollId') || null,
      orFilters: orFiltersOf(body.filter),
      sort: (body.sortCriteria ?? []).map((c) => ({ field: c.field, sortOrder: c.order ?? 'ASCENDING' })),
      ...(body.aspects ? { aspects: body.aspects } : {}),
    }));
    const withSystemMetadata = boolParam(q, 'systemMetadata', false);
    return { scrollId: page.scrollId, totalCount: page.total, entities: page.entities.map((view) => entityViewResponse('v3', view, withSystemMetadata)) };
  };
  app.post('/entity/scroll', (request) => scroll(request, []));
  app.post('/entity/:entityName/scroll', (request) => scroll(request, [entityTypeNamed((request.params as { entityName: string }).entityName).name]));
}
