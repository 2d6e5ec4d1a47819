/**
 * Documentation of the v3 entity routes DataHub's Python client uses besides the plain
 * batch write (entity-level PATCH, batchGet): docs/datahub-compatibility.md.
 */
import { PATH, QUERY, TRACE_HEADERS, NOT_FOUND_ENTITY, INVALID, WRITE_FAILURES, entityBody } from './entityDocParts.js';
import { DATASET_URN, PATCH_SET_VALUE, STRUCTURED_PROPERTIES } from './examples.js';
import { bodyErrors, commonErrors, ERRORS, ref, scopeNote, type RouteDoc } from './routeDoc.js';

/** The v3 routes DataHub's Python client uses besides the plain batch write (docs/datahub-compatibility.md). */
export function datahubBatchDocs(base: string, tags: readonly string[]): Record<string, RouteDoc> {
  const patchItem = { urn: DATASET_URN, datasetProperties: { value: { patch: [{ op: 'add', path: '/customProperties/owner_team', value: 'growth' }] } } };
  return {
    [`PATCH ${base}`]: {
      operationId: 'batchPatchEntitiesV3',
      summary: 'Patch aspects of entities in a batch',
      description:
        'DataHub\'s entity-level PATCH: per entity and aspect, an envelope whose `value` is a patch document (`{"patch": [...]}`, optionally with `arrayPrimaryKeys`, or a bare RFC 6902 list). Each patch applies to what readers see of the aspect (an empty aspect when absent, which creates it and the entity); patches of one aspect apply in the order sent. All or nothing, validated like a write. Returns one item per entity patched.' +
        scopeNote('write') +
        ' (admin for `test` entities)',
      tags,
      path: { entityName: PATH.entityName },
      query: { async: QUERY.async, systemMetadata: QUERY.systemMetadata },
      body: {
        description: 'A list of `{"urn": ..., "<aspect>": {"value": <patch document>}}`.',
        schema: { type: 'array', items: ref('EntityPatchV3') },
        examples: {
          addCustomProperty: { summary: 'Add one custom property to datasetProperties', value: [patchItem] },
          setOneValue: { summary: 'Set one structured property, keep the others', value: [{ urn: DATASET_URN, structuredProperties: { value: PATCH_SET_VALUE } }] },
        },
      },
      responses: {
        200: {
          description: 'The entities as patched.',
          schema: { type: 'array', items: ref('EntityV3') },
          examples: { patched: { summary: 'Patched', value: [entityBody('v3', { datasetProperties: { customProperties: { owner_team: 'growth' } } })] } },
          headers: TRACE_HEADERS,
        },
        400: ERRORS.validation({
          ...WRITE_FAILURES,
          badOp: { summary: 'Bad operation', value: { error: 'Validation Error', message: `request body[0].datasetProperties.value: patch[0].op must be one of add, remove, replace, test, not "move"` } },
        }),
        404: ERRORS.notFound({ type: NOT_FOUND_ENTITY.type! }),
        ...bodyErrors(),
        ...commonErrors('write', 'Writing status of urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)'),
      },
    },
    [`POST ${base}/batchGet`]: {
      operationId: 'batchGetEntitiesV3',
      summary: 'Read aspects of several entities',
      description:
        'DataHub\'s batchGet: per entity, the aspects named (each as `{}`); an item naming none reads them all. Entities that do not exist are left out of the answer.' + scopeNote('read'),
      tags,
      path: { entityName: PATH.entityName },
      query: { systemMetadata: QUERY.systemMetadata },
      body: {
        description: 'A list of `{"urn": ..., "<aspect>": {}}`.',
        schema: { type: 'array', items: ref('BatchGetItemV3') },
        examples: { twoAspects: { summary: 'Two aspects of a dataset', value: [{ urn: DATASET_URN, status: {}, structuredProperties: {} }] } },
      },
      responses: {
        200: {
          description: 'The entities found, with the aspects asked for that exist.',
          schema: { type: 'array', items: ref('EntityV3') },
          examples: { found: { summary: 'Found', value: [entityBody('v3', { status: { removed: false }, structuredProperties: STRUCTURED_PROPERTIES })] } },
        },
        400: ERRORS.validation({
          ...INVALID,
          aspect: { summary: 'Unknown aspect', value: { error: 'Validation Error', message: 'Unknown aspect fooAspect for entity type dataset; known aspects: datasetKey, status, structuredProperties, ...' } },
        }),
        404: ERRORS.notFound({ type: NOT_FOUND_ENTITY.type! }),
        ...bodyErrors(),
        ...commonErrors('read', 'entities.batchGet'),
      },
    },
  };
}
