/**
 * The bodies DataHub's Python client sends to the OpenAPI v3 routes besides the plain
 * batch write (docs/datahub-compatibility.md): the entity-level PATCH, batchGet, and the
 * write trace. Each aspect's patch is parsed by domain/jsonPatch.ts, as on the
 * single-aspect PATCH route.
 */
import * as z from 'zod';
import { urnText } from '../../domain/shapes/common.js';
import { aspectEnvelopeShape } from './entities.js';

const list = (example: string) => ({
  error: (iss: { code: string }) => (iss.code === 'invalid_type' ? `must be a JSON list of entities, e.g. ${example}` : undefined),
});

/** `[{urn, <aspect>: {value: {patch: [...]} | {arrayPrimaryKeys, patch}, systemMetadata?, headers?}}]`. */
export const entityPatchBatchShape = z
  .array(
    z
      .object({ urn: urnText })
      .catchall(aspectEnvelopeShape)
      .meta({ id: 'EntityPatchV3', description: 'A v3 entity patch: its URN and, per aspect name, an envelope whose `value` is a patch document (`{"patch": [...]}`, optionally with `arrayPrimaryKeys`).' }),
    list('[{"urn": "<urn>", "datasetProperties": {"value": {"patch": [{"op": "add", "path": "/description", "value": "d"}]}}}]'),
  );

/** `[{urn, <aspect>: {}}]`: the aspects named are read; none named reads them all. */
export const batchGetShape = z
  .array(
    z
      .object({ urn: urnText })
      .catchall(z.record(z.string(), z.unknown(), { error: 'must be an object ({} names the aspect to read)' }))
      .meta({ id: 'BatchGetItemV3', description: 'An entity to read: its URN and, per aspect to read, `{}`. No aspect named: all of them.' }),
    list('[{"urn": "<urn>", "datasetProperties": {}}]'),
  );

/** `{<urn>: [<aspect>, ...]}`: the entities and aspects a write trace asks about. */
export const traceRequestShape = z
  .record(urnText, z.array(z.string().max(200), { error: 'must be a list of aspect names, e.g. ["datasetProperties"]' }).max(100), {
    error: 'must be an object from entity URN to aspect names, e.g. {"urn:li:dataset:(...)": ["datasetProperties"]}',
  })
  .meta({ id: 'TraceRequest', description: 'Per entity URN, the aspects whose write status is asked for.' });

const storageStatus = z.object({ writeStatus: z.enum(['ERROR', 'PENDING', 'ACTIVE_STATE', 'HISTORIC_STATE', 'NO_OP', 'UNKNOWN', 'TRACE_NOT_IMPLEMENTED']) });

export const traceAnswerShape = z
  .record(
    z.string(),
    z.record(
      z.string(),
      z.object({
        success: z.boolean(),
        primaryStorage: storageStatus,
        searchStorage: storageStatus,
      }),
    ),
  )
  .meta({
    id: 'TraceAnswer',
    description:
      'Per URN and aspect asked about: `ACTIVE_STATE` when stored (primary) and searchable (search), `PENDING` while the search index has not caught up, `NO_OP` (search) when search is disabled, `UNKNOWN` when the aspect is not stored (now).',
  });

/** `{urns, aspectNames?, withSystemMetadata?}`: DataHub's v2 batch read (`get_entities_v2`); no aspect named reads them all. */
export const batchReadV2Shape = z
  .strictObject({
    urns: z.array(urnText, { error: 'must be a list of entity URNs' }),
    aspectNames: z.array(z.string().max(200)).nullish(),
    withSystemMetadata: z.boolean().nullish(),
  })
  .meta({ id: 'BatchReadV2', description: 'The entities to read and the aspects to read of each (none named: all).' });

/** A criterion of DataHub's search filter, as its clients send it (`value` is the older single value). */
const criterionShape = z.object({
  field: z.string().min(1).max(500),
  condition: z.enum(['EQUAL', 'IN', 'EXISTS', 'GREATER_THAN', 'GREATER_THAN_OR_EQUAL_TO', 'LESS_THAN', 'LESS_THAN_OR_EQUAL_TO', 'CONTAIN', 'START_WITH', 'END_WITH']).nullish(),
  values: z.array(z.string().max(2000)).nullish(),
  value: z.string().max(2000).nullish(),
  negated: z.boolean().nullish(),
});

/** `{aspects?, filter?: {or: [{and: [criterion]}]}, sortCriteria?, entityTypes?}`: DataHub's v3 scroll (`scroll_entities`). */
export const scrollBodyShape = z
  .object({
    aspects: z.array(z.string().max(200)).nullish(),
    entityTypes: z.array(z.string().max(200)).nullish(),
    filter: z.object({ or: z.array(z.object({ and: z.array(criterionShape).nullish() })).nullish() }).nullish(),
    sortCriteria: z.array(z.object({ field: z.string().max(200), order: z.enum(['ASCENDING', 'DESCENDING']).nullish() })).nullish(),
  })
  .meta({ id: 'ScrollV3', description: "DataHub's scroll body: the aspects to return (none: all), a filter (an OR of ANDs of criteria), the sort and, across entities, the types." });

export type ScrollBody = z.output<typeof scrollBodyShape>;
