/**
 * Documentation of the generic entity routes of REST v2 and v3 (SPEC 4,
 * rest/entityRoutes.ts), written once and shaped per version like the routes are.
 */
import type { ApiVersion } from '../shapes.js';
import { ENTITY_NAMES } from './components.js';
import {
  DATASET_KEY,
  DATASET_URN,
  INVALID_URN,
  OTHER_DATASET_URN,
  PATCH_REMOVE_VALUE,
  PATCH_SET_VALUE,
  PROPERTY_DEFINITION,
  PROPERTY_URN,
  STRUCTURED_PROPERTIES,
  SYSTEM_METADATA,
  TEST_INFO,
  TEST_URN,
} from './examples.js';
import { bodyErrors, commonErrors, ERRORS, NO_BODY, ref, scopeNote, type Examples, type ParamDoc, type ResponseDoc, type RouteDoc } from './routeDoc.js';

/** The aspects with schemas of their own, then any other aspect. */
const ASPECT_SCHEMAS = ['PropertyDefinition', 'StructuredProperties', 'Status', 'TestInfo', 'TestResults', 'Aspect'];

const PATH: Record<'entityName' | 'urn' | 'aspect', ParamDoc> = {
  entityName: {
    description: 'The entity type, matched case-insensitively.',
    schema: { type: 'string', enum: [...ENTITY_NAMES] },
    example: 'dataset',
  },
  urn: {
    description: 'The entity URN, percent-encoded (decoded exactly once).',
    schema: { type: 'string' },
    example: DATASET_URN,
  },
  aspect: {
    description:
      'The aspect name: `structuredProperties`, `status`, `propertyDefinition` (structuredProperty), `testInfo` (test), `testResults`, `datasetProperties`, ... An unknown aspect for the type is a 400 listing the known ones.',
    schema: { type: 'string' },
    example: 'structuredProperties',
  },
};

const bool = (description: string, fallback?: boolean): ParamDoc => ({
  description,
  schema: { type: 'boolean', ...(fallback === undefined ? {} : { default: fallback }) },
});

const QUERY = {
  systemMetadata: bool('Also return each aspect\'s `systemMetadata` (audit fields, `version`).', false),
  async: bool(
    'Return at commit (`true`) or also wait, bounded, until the search index reflects the write (`false`). Absent: the server default `WRITE_WAIT_FOR_INDEX` decides. The write is committed before the response either way.',
  ),
  aspects: {
    description: 'Only these aspects (repeatable, or comma-separated).',
    schema: { type: 'array', items: { type: 'string' } },
  } satisfies ParamDoc,
};

/** DataHub's API tracing: the trace id to ask `POST /openapi/v1/trace/write/{traceId}` about. */
const TRACE_HEADERS: ResponseDoc['headers'] = {
  traceparent: { description: 'W3C trace context `00-<trace id>-<span id>-01` of the writes (when the request wrote); pass the trace id to `POST /openapi/v1/trace/write/{traceId}`.', schema: { type: 'string' } },
};

const NOT_FOUND_ENTITY: Examples = {
  entity: { summary: 'No such entity', value: { error: 'Not Found', message: `Entity ${DATASET_URN} does not exist` } },
  type: { summary: 'Unknown entity type in the path', value: { error: 'Not Found', message: 'Unknown entity type foo' } },
};

const INVALID: Examples = { urn: { summary: 'Unparsable URN', value: INVALID_URN } };

const WRITE_FAILURES: Examples = {
  ...INVALID,
  notAllowed: {
    summary: 'Value not allowed',
    value: { error: 'Validation Error', message: `Property: ${PROPERTY_URN}, value: {double=45.0} should be one of [{double=30.0}, {double=60.0}]` },
  },
  exists: {
    summary: 'Create-only write of an existing aspect',
    value: {
      error: 'Validation Error',
      message: `Cannot perform CREATE since the aspect already exists. The aspect is structuredProperties of ${DATASET_URN}; createIfNotExists=true (this route's default) only creates, so send createIfNotExists=false to replace it.`,
    },
  },
  softDeleted: { summary: 'Property soft deleted', value: { error: 'Validation Error', message: `Cannot apply a soft deleted Structured Property value: ${PROPERTY_URN}` } },
};

/** The response body of a write or read of aspects of one entity, per version. */
function entityBody(version: ApiVersion, aspects: Record<string, unknown>, urn = DATASET_URN): unknown {
  const wrapped = Object.fromEntries(Object.entries(aspects).map(([name, value]) => [name, { value }]));
  return version === 'v3' ? { urn, ...wrapped } : { urn, aspects: wrapped };
}

const entitySchema = (version: ApiVersion) => ref(version === 'v3' ? 'EntityV3' : 'EntityV2');

function aspectBodyExamples(version: ApiVersion): Examples {
  const wrap = (value: unknown) => (version === 'v3' ? { value } : value);
  return {
    structuredProperties: {
      summary: 'Set a dataset\'s structured properties (replaces the aspect)',
      description: `entityName \`dataset\`, urn \`${DATASET_URN}\`, aspect \`structuredProperties\`. The property must be defined first.`,
      value: wrap(STRUCTURED_PROPERTIES),
    },
    propertyDefinition: {
      summary: 'Define a structured property',
      description: `entityName \`structuredProperty\`, urn \`${PROPERTY_URN}\`, aspect \`propertyDefinition\`.`,
      value: wrap(PROPERTY_DEFINITION),
    },
    softDelete: {
      summary: 'Soft delete a structured property (reversible)',
      description: `entityName \`structuredProperty\`, urn \`${PROPERTY_URN}\`, aspect \`status\`, with createIfNotExists=false.`,
      value: wrap({ removed: true }),
    },
    restore: {
      summary: 'Restore a soft-deleted structured property',
      description: 'As the soft delete, with `removed: false` (deleting the `status` aspect restores too).',
      value: wrap({ removed: false }),
    },
    testInfo: {
      summary: 'Create or update a metadata test (admin)',
      description: `entityName \`test\`, urn \`${TEST_URN}\`, aspect \`testInfo\`. See docs/metadata-tests.md for the definition grammar.`,
      value: wrap(TEST_INFO),
    },
    ...(version === 'v3'
      ? {
          ifVersionMatch: {
            summary: 'Conditional write (If-Version-Match)',
            description: 'Writes only if the stored `status` is at revision 1; otherwise 412.',
            value: { value: { removed: false }, headers: { 'If-Version-Match': '1' } },
          },
        }
      : {}),
  };
}

function batchExamples(version: ApiVersion): Examples {
  const entity = (urn: string, aspects: Record<string, unknown>) => entityBody(version, aspects, urn);
  return {
    createDatasets: {
      summary: 'Create two datasets',
      value: [entity(DATASET_URN, { status: { removed: false } }), entity(OTHER_DATASET_URN, { status: { removed: false } })],
    },
    withValues: {
      summary: 'Create a dataset with structured properties',
      value: [entity(DATASET_URN, { status: { removed: false }, structuredProperties: STRUCTURED_PROPERTIES })],
    },
  };
}

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
        ...commonErrors('write', 'entities.batchUpsert'),
      },
    },
    ...(v3 ? datahubBatchDocs(base, tags) : {}),
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
      query: { async: QUERY.async },
      responses: {
        200: NO_BODY('Deleted (or there was nothing to delete); empty body.'),
        400: ERRORS.validation(INVALID),
        404: ERRORS.notFound({ type: NOT_FOUND_ENTITY.type! }),
        ...commonErrors('admin', 'entities.deleteEntity'),
      },
    },
    [`GET ${base}/{urn}/{aspect}`]: {
      operationId: id('getAspect'),
      summary: 'Read one aspect',
      description: (v3 ? 'Answers `{"urn": ..., "<aspect>": {"value": {...}}}`.' : 'Answers `{"value": {...}}`.') + scopeNote('read'),
      tags,
      path: PATH,
      query: { systemMetadata: QUERY.systemMetadata },
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
        `Writes the aspect and echoes it as stored. \`createIfNotExists\` defaults to **true**, which makes the write create-only (400 if the aspect exists); pass \`createIfNotExists=false\` to create or update. A \`structuredProperties\` write replaces the whole aspect. \`propertyDefinition\` and \`structuredProperties\` writes are fully validated (SPEC 2, 3); writing \`status\` with \`removed: true\` on a structured property soft deletes it.${
          v3 ? ' The body is an envelope `{"value": {...}}`; `headers.If-Version-Match` makes the write conditional (412).' : ' The body is the aspect itself.'
        }` + scopeNote('write') + ' (admin for `test` entities)',
      tags,
      path: PATH,
      query: {
        createIfNotExists: bool('Create-only when true: an existing aspect is a 400.', true),
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
        ...commonErrors('write', 'entities.setAspect'),
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
        ...commonErrors('write', 'entities.patchAspect'),
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
        ...commonErrors('write', 'entities.deleteAspect'),
      },
    },
  };
}

/** The v3 routes DataHub's Python client uses besides the plain batch write (docs/datahub-compatibility.md). */
function datahubBatchDocs(base: string, tags: readonly string[]): Record<string, RouteDoc> {
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
        ...commonErrors('write', 'entities.batchPatch'),
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
