/**
 * DataHub GMS's Rest.li routes, as DataHub's own Python client (the `datahub` CLI and
 * SDK) calls them (docs/datahub-compatibility.md): the `/config` handshake, aspect reads
 * and proposals under `/aspects`, entity reads under `/entitiesV2`, and the delete
 * actions under `/entities`. Each is a thin adapter onto the entity service, which
 * REST v3 and GraphQL use too; only the shapes are DataHub's.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { aspectClassOf } from '../domain/aspects/index.js';
import { aspectNamed, findEntityType, type EntityTypeInfo } from '../domain/registry/entityTypes.js';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import { quoteInput } from '../domain/inputLimits.js';
import { checkRequestedResults } from '../domain/limits.js';
import { parseShape } from '../domain/shapes/shape.js';
import { keyAspectOf, parseUrn, parseUrnOfType } from '../domain/urn.js';
import { entityDeletePlan, itemsOf, planOf } from '../domain/writes/plan.js';
import type { WriteOptions } from '../services/caller.js';
import type { AspectValue } from '../services/entityService.js';
import type { Services } from '../services/index.js';
import { stringParam, versionParam, type Query } from '../rest/params.js';
import { deleteEntityShape, deleteReferencesShape, ingestProposalBatchShape, ingestProposalShape } from './bodies.js';
import { parseProposal, planItemOf, proposalLabel } from './proposals.js';
import { serverConfig } from './serverConfig.js';

export interface RestliRouteOptions {
  readonly services: Services;
  /** The server default for waiting on the search index (WRITE_WAIT_FOR_INDEX). */
  readonly writeWaitForIndex: boolean;
  /** propgraph's own version, shown in /config. */
  readonly version: string;
}

/** What Rest.li's success answer to an action that returns nothing looks like (RESTLI_SUCCESS). */
const SUCCESS = { value: 'success' };

/**
 * The entity type a urn names. A type this server does not have is "no such entity"
 * (404), not a bad request: DataHub's client reads a 404 as absent, and probes with
 * types propgraph has no use for (`urn:li:telemetry:clientId`).
 */
function entityTypeOfUrn(urn: string): EntityTypeInfo {
  const name = /^urn:li:([^:]+):/.exec(urn)?.[1];
  const type = name === undefined ? undefined : findEntityType(name);
  if (name !== undefined && (!type || type.name !== name)) {
    throw new NotFoundError(`No entity ${quoteInput(urn)}: this server has no entity type ${quoteInput(name)}`);
  }
  // A urn without a type is reported by the urn parser, with the reason.
  return type ?? parseUrn(urn).entityType;
}

/** The record class Rest.li wraps an aspect in; an aspect the registry has no class for cannot be answered here. */
function recordClassOf(type: EntityTypeInfo, aspect: string): string {
  const known = aspectClassOf(type, aspect);
  if (known) return known;
  throw new NotFoundError(`Aspect ${aspect} has no DataHub record class known to this server, so Rest.li cannot answer it; read it through /openapi/v3`);
}

/** `List(a,b)` (Rest.li's list syntax, as the client sends it unencoded), or `a,b`. */
function restliList(query: Query, name: string): string[] | undefined {
  const raw = stringParam(query, name);
  if (raw === undefined) return undefined;
  const inner = /^List\((.*)\)$/s.exec(raw)?.[1] ?? raw;
  return inner.split(',').map((s) => s.trim()).filter(Boolean);
}

/** `EnvelopedAspect` of an entitiesV2 answer: the bare record under `value`. */
function envelopedAspect(name: string, aspect: AspectValue): Record<string, unknown> {
  return { name, type: 'VERSIONED', version: 0, value: aspect.value, ...(aspect.systemMetadata ? { systemMetadata: aspect.systemMetadata } : {}) };
}

function action(request: FastifyRequest, actions: readonly string[]): string {
  const name = stringParam(request.query as Query, 'action');
  if (name !== undefined && actions.includes(name)) return name;
  throw new ValidationError(
    name === undefined ? `Query parameter action is required: ${actions.join(' or ')}` : `Unknown action ${quoteInput(name)}: ${actions.join(' or ')}`,
    'action',
  );
}

export async function restliRoutes(app: FastifyInstance, options: RestliRouteOptions): Promise<void> {
  const entities = options.services.entities;
  /** Rest.li's `async` is a string; unset, the server default applies. */
  const writeOptions = (async: boolean | undefined): WriteOptions => ({ async: async ?? !options.writeWaitForIndex });

  app.get('/config', async () => serverConfig(options.version));

  app.get('/aspects/:urn', async (request) => {
    const { urn } = request.params as { urn: string };
    const q = request.query as Query;
    const type = entityTypeOfUrn(urn);
    const asked = stringParam(q, 'aspect');
    if (asked === undefined || asked === '') throw new ValidationError('Query parameter aspect is required: the name of the aspect to read, e.g. aspect=status', 'aspect');
    const version = versionParam(q);
    const aspect = aspectNamed(type, asked);
    // Version 0 is the latest; 1..n the earlier ones, oldest first, as DataHub numbers them.
    const found = await options.services.history.aspectVersion(request.caller, urn, aspect, version, type);
    return { aspect: { [recordClassOf(type, aspect)]: found.value }, version };
  });

  app.post('/aspects', async (request) => {
    const name = action(request, ['ingestProposal', 'ingestProposalBatch']);
    if (name === 'ingestProposal') {
      const body = parseShape(ingestProposalShape, request.body, 'request body');
      const plan = planOf([planItemOf(parseProposal(body.proposal, 'proposal'))]);
      request.receipts.add((await options.services.writes.submit(request.caller, plan, writeOptions(body.async))).receipt);
      return SUCCESS;
    }
    const body = parseShape(ingestProposalBatchShape, request.body, 'request body');
    checkRequestedResults(body.proposals.length, 'This proposal batch', 'proposals');
    // The batch is one plan, all or nothing: every proposal is checked, authorized and decided before anything is written,
    // and a refusal lists every bad proposal (docs/contract.md, "Whole batches").
    const items = itemsOf(body.proposals, (raw, at, i) => {
      const p = parseProposal(raw, at);
      return planItemOf(p, proposalLabel(p, i));
    }, (i) => `proposals[${i}]`);
    request.receipts.add((await options.services.writes.submit(request.caller, planOf(items), writeOptions(body.async))).receipt);
    return SUCCESS;
  });

  app.get('/entitiesV2/:urn', async (request) => {
    const { urn } = request.params as { urn: string };
    const type = entityTypeOfUrn(urn);
    const asked = restliList(request.query as Query, 'aspects')?.map((a) => aspectNamed(type, a));
    // The key aspect is always in the answer (DataHub's alwaysIncludeKeyAspect).
    const names = asked ? [...new Set([type.keyAspect, ...asked])] : undefined;
    const aspects: Record<string, unknown> = {};
    try {
      const view = await entities.getEntity(request.caller, urn, { entityType: type, ...(names ? { aspects: names } : {}) });
      for (const [name, value] of view.aspects) aspects[name] = envelopedAspect(name, value);
    } catch (err) {
      // DataHub answers a missing entity with its key aspect alone; the CLI reads that as "not found".
      if (!(err instanceof NotFoundError)) throw err;
      aspects[type.keyAspect] = envelopedAspect(type.keyAspect, { value: keyAspectOf(parseUrn(urn)), systemMetadata: null });
    }
    return { entityName: type.name, urn, aspects };
  });

  app.post('/entities', async (request) => {
    const name = action(request, ['delete', 'deleteReferences']);
    if (name === 'delete') {
      const { urn } = parseShape(deleteEntityShape, request.body, 'request body');
      const type = entityTypeOfUrn(urn);
      // What the delete removes, for the answer's row count; nothing when it does not exist.
      const rows = await entities.getEntity(request.caller, urn, { entityType: type }).then(
        (view) => view.aspects.size,
        (err: unknown) => {
          if (err instanceof NotFoundError) return 0;
          throw err;
        },
      );
      request.receipts.add((await options.services.writes.submit(request.caller, entityDeletePlan(parseUrnOfType(urn, type)), writeOptions(undefined))).receipt);
      return { value: { urn, rows, timeseriesRows: 0 } };
    }
    const body = parseShape(deleteReferencesShape, request.body, 'request body');
    const related =
      body.dryRun === true
        ? await entities.references(request.caller, body.urn)
        : request.receipts.resultOf(await entities.removeReferences(request.caller, body.urn, writeOptions(undefined)));
    return { value: { total: related.length, relatedAspects: related } };
  });
}
