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
