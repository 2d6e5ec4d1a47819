/**
 * Documentation of the generic entity routes of REST v2 and v3 (docs/contract.md §4,
 * rest/entityRoutes.ts), written once and shaped per version like the routes are.
 */
import type { ApiVersion } from '../shapes.js';
import { ASPECT_SCHEMAS, PATH, bool, QUERY, TRACE_HEADERS, NOT_FOUND_ENTITY, INVALID, WRITE_FAILURES, entityBody, entitySchema, aspectBodyExamples, batchExamples } from './entityDocParts.js';
import { datahubBatchDocs } from './datahubEntityDocs.js';
import { datahubReadDocs } from './datahubReadDocs.js';
import { DATASET_KEY, DATASET_URN, OTHER_DATASET_URN, PATCH_REMOVE_VALUE, PATCH_SET_VALUE, PROPERTY_DEFINITION, PROPERTY_URN, STRUCTURED_PROPERTIES, SYSTEM_METADATA } from './examples.js';
import { bodyErrors, commonErrors, ERRORS, NO_BODY, ref, scopeNote, type ResponseDoc, type RouteDoc } from './routeDoc.js';

export function entityRouteDocs(version: ApiVersion): Record<string, RouteDoc> {
  const base = `/openapi/${version}/entity/{entityName}`;
  const tags = [`Entities (${version})`];
  const id = (name: string) => `${name}${version.toUpperCase()}`;
  const v3 = version === 'v3';
  return {
    [`POST ${base}`]: {
      operationId: id('batchUpsertEntities'),
      summary: 'Create or update entities in a batch',
      description:
        `Writes several entities with their aspects in one transaction: one bad entity fails the whole batch and nothing is written. Validation always happens before the answer. An entity may appear in several items (DataHub's client sends one item per aspect): its items apply in order, the later value of an aspect sent twice wins. ${
          v3 ? 'Returns one item per entity written, in first-appearance order, with every aspect written.' : 'Returns the URNs written, once each.'
        }${scopeNote('write')} (admin for \`test\` entities)`,
      tags,
      path: { entityName: PATH.entityName },
      query: {
        createIfNotExists: bool('Create-only per aspect: an aspect that already exists is a 400.', false),
        createEntityIfNotExists: bool('Refuse an entity that already exists.', false),
        async: QUERY.async,
        systemMetadata: QUERY.systemMetadata,
      },
      body: {
        description: v3
          ? 'A list of `{"urn": ..., "<aspect>": {"value": {...}}}`.'
          : 'A list of `{"urn": ..., "aspects": {"<aspect>": {"value": {...}}}}`.',
        schema: { type: 'array', items: entitySchema(version) },
        examples: batchExamples(version),
      },
      responses: {
        200: v3
          ? {
              description: 'The entities as written, one item per entity.',
              schema: { type: 'array', items: ref('EntityV3') },
              examples: { written: { summary: 'Written', value: [entityBody('v3', { status: { removed: false } })] } },
              headers: TRACE_HEADERS,
            }
          : {
              description: 'The URNs written.',
              schema: { type: 'array', items: { type: 'object', properties: { urn: { type: 'string' } } } },
              examples: { written: { summary: 'Written', value: [{ urn: DATASET_URN }, { urn: OTHER_DATASET_URN }] } },
            },
        400: ERRORS.validation(WRITE_FAILURES),
        404: ERRORS.notFound({ type: NOT_FOUND_ENTITY.type! }),
        ...bodyErrors(),
        ...commonErrors('write', 'Writing status of urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)'),
      },
    },
    ...(v3 ? datahubBatchDocs(base, tags) : {}),
    ...datahubReadDocs(`/openapi/${version}/entity`, version, tags),
    [`GET ${base}`]: {
      operationId: id('listEntities'),
      summary: 'List or search entities of a type',
      description:
        'Pages through the entities of a type in URN order, with an opaque `scrollId` for the next page. For searchable types, `query` searches (a Lucene subset: `structuredProperties.<name with . as _>:>30`, `_exists_:field`, `AND`/`OR`/`NOT`; see docs/search.md) and `sort`/`sortOrder` order the results.' +
        scopeNote('read'),
      tags,
      path: { entityName: PATH.entityName },
      query: {
        query: { description: 'Search query (`*` = all).', schema: { type: 'string' }, example: '*' },
        count: { description: 'Page size; larger values are capped at 1000.', schema: { type: 'integer', minimum: 1, default: 10 } },
        scrollId: { description: 'The `scrollId` of the previous page.', schema: { type: 'string' } },
        sort: { description: 'Field to sort by (search only).', schema: { type: 'string' } },
        sortOrder: { description: 'Sort direction.', schema: { type: 'string', enum: ['ASCENDING', 'DESCENDING'], default: 'ASCENDING' } },
        aspects: QUERY.aspects,
        systemMetadata: QUERY.systemMetadata,
      },
      responses: {
        200: {
          description: 'One page of entities.',
          schema: ref('EntityPage'),
          examples: {
            page: {
              summary: 'A page with more to come',
              value: { scrollId: 'dXJuOmxpOmRhdGFzZXQ6KHVybjpsaTpkYXRhUGxhdGZvcm06aGl2ZSxkYi5pdGVtcyxQUk9EKQ', entities: [entityBody(version, { datasetKey: DATASET_KEY, status: { removed: false } })] },
            },
          },
        },
        400: ERRORS.validation({ count: { summary: 'Bad count', value: { error: 'Validation Error', message: 'Query parameter count must be an integer, got "abc"' } } }),
        404: ERRORS.notFound({ type: NOT_FOUND_ENTITY.type! }),
        ...commonErrors('read', 'entities.listEntities'),
      },
    },
    [`GET ${base}/{urn}`]: {
      operationId: id('getEntity'),
      summary: 'Read an entity with its aspects',
      description: 'The entity with all its aspects, or those named in `aspects`. Values of soft-deleted, hard-deleted or outdated properties are never returned.' + scopeNote('read'),
      tags,
      path: { entityName: PATH.entityName, urn: PATH.urn },
      query: { aspects: QUERY.aspects, systemMetadata: QUERY.systemMetadata },
      responses: {
        200: {
          description: 'The entity.',
          schema: entitySchema(version),
          examples: { dataset: { summary: 'A dataset', value: entityBody(version, { datasetKey: DATASET_KEY, status: { removed: false }, structuredProperties: STRUCTURED_PROPERTIES }) } },
        },
        400: ERRORS.validation(INVALID),
        404: ERRORS.notFound(NOT_FOUND_ENTITY),
        ...commonErrors('read', 'entities.getEntity'),
      },
    },
    [`DELETE ${base}/{urn}`]: {
      operationId: id('deleteEntity'),
      summary: 'Hard delete an entity',
      description:
        'Removes the entity and its aspects (a dataset takes its schema fields along). Idempotent: 200 also when it did not exist. Hard deleting a `structuredProperty` removes the definition at once and its values from every entity in a background job (see `GET /openapi/v3/jobs`).' +
        scopeNote('admin'),
      tags,
      path: { entityName: PATH.entityName, urn: PATH.urn },
      query: { async: QUERY.async, dryRun: bool('Delete nothing; answer `{"dryRun": true, "impact": {...}}`: the values the delete would remove (a structured property\'s on every entity; another entity\'s own and its fields\').', false) },
      responses: {
        200: { description: 'Deleted (or there was nothing to delete); empty body. With `dryRun=true`, what it would remove.', schema: ref('DryRun'), examples: { dryRun: { summary: 'dryRun=true on a property', value: { dryRun: true, impact: { entities: 12, values: 14, byEntityType: { dataset: 10, schemaField: 2 } } } } } },
        400: ERRORS.validation(INVALID),
        404: ERRORS.notFound({ type: NOT_FOUND_ENTITY.type! }),
        ...commonErrors('admin', 'Deleting urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)'),
      },
    },
    [`GET ${base}/{urn}/{aspect}`]: {
      operationId: id('getAspect'),
      summary: 'Read one aspect',
      description: (v3 ? 'Answers `{"urn": ..., "<aspect>": {"value": {...}}}`.' : 'Answers `{"value": {...}}`.') + scopeNote('read'),
      tags,
      path: PATH,
      query: {
        systemMetadata: QUERY.systemMetadata,
        version: { description: 'The version to read: 0 (default) the latest, 1..n the earlier ones, oldest first (docs/contract.md §13); 404 for a version not stored.', schema: { type: 'integer', minimum: 0, default: 0 } },
      },
      responses: {
        200: {
          description: 'The aspect.',
          schema: v3 ? ref('EntityV3') : ref('AspectEnvelope'),
          examples: {
            structuredProperties: { summary: 'structuredProperties of a dataset', value: v3 ? entityBody('v3', { structuredProperties: STRUCTURED_PROPERTIES }) : { value: STRUCTURED_PROPERTIES } },
            withSystemMetadata: {
              summary: 'With systemMetadata=true',
              value: v3 ? { urn: DATASET_URN, status: { value: { removed: false }, systemMetadata: SYSTEM_METADATA } } : { value: { removed: false }, systemMetadata: SYSTEM_METADATA },
            },
          },
        },
        400: ERRORS.validation({
          ...INVALID,
          aspect: { summary: 'Unknown aspect', value: { error: 'Validation Error', message: 'Unknown aspect fooAspect for entity type dataset; known aspects: datasetKey, status, structuredProperties, ...' } },
        }),
        404: ERRORS.notFound({ aspect: { summary: 'No such aspect or entity', value: { error: 'Not Found', message: `Aspect structuredProperties of ${DATASET_URN} does not exist` } } }),
        ...commonErrors('read', 'entities.getAspect'),
      },
    },
    [`POST ${base}/{urn}/{aspect}`]: {
      operationId: id('writeAspect'),
      summary: 'Write one aspect',
      description:
        `Writes the aspect and echoes it as stored. \`createIfNotExists\` defaults to **true**, which makes the write create-only (400 if the aspect exists); pass \`createIfNotExists=false\` to create or update. A \`structuredProperties\` write replaces the whole aspect. \`propertyDefinition\` and \`structuredProperties\` writes are fully validated (docs/contract.md §2, §3); writing \`status\` with \`removed: true\` on a structured property soft deletes it.${
          v3 ? ' The body is an envelope `{"value": {...}}`; `headers.If-Version-Match` makes the write conditional (412).' : ' The body is the aspect itself.'
        }` + scopeNote('write') + ' (admin for `test` entities)',
      tags,
      path: PATH,
      query: {
        createIfNotExists: bool('Create-only when true: an existing aspect is a 400.', true),
        dryRun: bool('Decide the write and store nothing; answer `{"dryRun": true, "impact": {...}}`: the values it would drop (a definition that starts a new version drops its property\'s values).', false),
        async: QUERY.async,
        systemMetadata: QUERY.systemMetadata,
      },
      body: {
        description: v3 ? 'The aspect in an envelope.' : 'The aspect value.',
        schema: v3 ? ref('AspectEnvelope') : { anyOf: ASPECT_SCHEMAS.map(ref) },
        examples: aspectBodyExamples(version),
      },
      responses: {
        200: {
          description: 'The aspect as stored.',
          schema: entitySchema(version),
          examples: {
            structuredProperties: { summary: 'structuredProperties written', value: entityBody(version, { structuredProperties: STRUCTURED_PROPERTIES }) },
            propertyDefinition: { summary: 'propertyDefinition written', value: entityBody(version, { propertyDefinition: PROPERTY_DEFINITION }, PROPERTY_URN) },
          },
        },
        400: ERRORS.validation({
          ...WRITE_FAILURES,
          incompatible: {
            summary: 'Breaking definition change without a new version',
            value: { error: 'Validation Error', message:
              'Incompatible structured property definition change: valueType changes from urn:li:dataType:svc.number to urn:li:dataType:svc.string. Set a new version (yyyyMMddhhmmss) to apply a breaking change.' },
          },
        }),
        404: ERRORS.notFound({ entity: { summary: 'Target entity missing', value: { error: 'Not Found', message: `Entity ${DATASET_URN} does not exist` } } }),
        ...(v3 ? ({ 412: ERRORS.precondition } as Record<number, ResponseDoc>) : {}),
        ...bodyErrors(),
        ...commonErrors('write', 'Writing status of urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)'),
      },
    },
    [`PATCH ${base}/{urn}/{aspect}`]: {
      operationId: id('patchAspect'),
      summary: 'Patch one aspect (JSON patch)',
      description:
        'Applies a JSON patch to the stored aspect and validates the result like a write. With `arrayPrimaryKeys` `{"properties": ["propertyUrn"]}`, `/properties/<property urn>` addresses one structured property: `add` sets its values, `remove` drops it, the others stay.' +
        scopeNote('write'),
      tags,
      path: PATH,
      query: { async: QUERY.async, systemMetadata: QUERY.systemMetadata },
      body: {
        description: 'A patch document.',
        schema: ref('JsonPatch'),
        contentTypes: ['application/json-patch+json', 'application/json'],
        examples: {
          setOne: { summary: 'Set one property\'s values, keep the others', value: PATCH_SET_VALUE },
          removeOne: { summary: 'Remove one property, keep the others', value: PATCH_REMOVE_VALUE },
        },
      },
      responses: {
        200: {
          description: 'The aspect as stored after the patch.',
          schema: entitySchema(version),
          examples: { patched: { summary: 'Patched', value: entityBody(version, { structuredProperties: { properties: [{ propertyUrn: PROPERTY_URN, values: [{ double: 30 }] }] } }) } },
        },
        400: ERRORS.validation({
          ...WRITE_FAILURES,
          badOp: { summary: 'Bad operation', value: { error: 'Validation Error', message: 'patch[0].op must be one of add, remove, replace, test, not "move"' } },
        }),
        404: ERRORS.notFound({ entity: { summary: 'Target entity missing', value: { error: 'Not Found', message: `Entity ${DATASET_URN} does not exist` } } }),
        ...bodyErrors(),
        ...commonErrors('write', 'Writing status of urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)'),
      },
    },
    [`DELETE ${base}/{urn}/{aspect}`]: {
      operationId: id('deleteAspect'),
      summary: 'Delete one aspect',
      description:
        'Removes the aspect. On a structured property, deleting `status` restores it and deleting `propertyDefinition` removes the definition like a hard delete.' +
        scopeNote('write'),
      tags,
      path: PATH,
      query: { async: QUERY.async },
      responses: {
        200: NO_BODY('Deleted; empty body.'),
        400: ERRORS.validation(INVALID),
        404: ERRORS.notFound(NOT_FOUND_ENTITY),
        ...commonErrors('write', 'Writing deleting status of urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)'),
      },
    },
  };
}
