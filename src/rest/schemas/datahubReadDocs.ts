/**
 * Documentation of the OpenAPI reads DataHub's Python client makes besides batchGet
 * (rest/datahubReadRoutes.ts): `get_entities_v2` and `scroll_entities`.
 */
import { PATH, QUERY, INVALID, entityBody } from './entityDocParts.js';
import { DATASET_URN, STRUCTURED_PROPERTIES } from './examples.js';
import { bodyErrors, commonErrors, ERRORS, ref, scopeNote, type RouteDoc } from './routeDoc.js';

const page = {
  type: 'object',
  properties: {
    scrollId: { type: ['string', 'null'], description: 'Pass it back as `scrollId` for the next page; null on the last page.' },
    totalCount: { type: 'integer', description: 'Entities matching in all.' },
    entities: { type: 'array', items: ref('EntityV3') },
  },
};

function scrollDoc(operationId: string, summary: string, perType: boolean, tags: readonly string[]): RouteDoc {
  return {
    operationId,
    summary,
    description:
      `DataHub's scroll (its client's \`scroll_entities\`): entities${perType ? ' of a type' : ' of the types named in the body (none: every type searched by default)'} matching \`query\` and the body's filter (an OR of ANDs of \`{field, condition, values, negated}\`, the fields of docs/search.md with DataHub's spellings such as \`platform.keyword\`), with the aspects named (none: all of them).` +
      scopeNote('read'),
    tags,
    ...(perType ? { path: { entityName: PATH.entityName } } : {}),
    query: {
      query: { description: 'Keywords and `field:value` clauses (docs/search.md); absent or `*`: everything.', schema: { type: 'string' } },
      count: { description: 'Page size; larger values are capped at 1000.', schema: { type: 'integer', minimum: 0, default: 10 } },
      scrollId: { description: 'The `scrollId` of the previous page.', schema: { type: 'string' } },
      systemMetadata: QUERY.systemMetadata,
    },
    body: {
      description: 'What to return and how to filter and sort.',
      schema: ref('ScrollV3'),
      examples: {
        hive: {
          summary: 'Hive datasets, two aspects',
          value: {
            aspects: ['datasetProperties', 'structuredProperties'],
            filter: { or: [{ and: [{ field: 'platform.keyword', condition: 'EQUAL', values: ['urn:li:dataPlatform:hive'] }] }] },
          },
        },
      },
    },
    responses: {
      200: {
        description: 'A page of entities.',
        schema: page,
        examples: { page: { summary: 'One page', value: { scrollId: null, totalCount: 1, entities: [entityBody('v3', { structuredProperties: STRUCTURED_PROPERTIES })] } } },
      },
      400: ERRORS.validation(INVALID),
      ...bodyErrors(),
      ...commonErrors('read', 'search.scrollEntities'),
    },
  };
}

export function datahubReadDocs(base: string, version: 'v2' | 'v3', tags: readonly string[]): Record<string, RouteDoc> {
  if (version === 'v2') {
    return {
      [`POST ${base}/batch/{entityName}`]: {
        operationId: 'batchReadEntitiesV2',
        summary: 'Read aspects of several entities (v2)',
        description:
          "DataHub's v2 batch read (its client's `get_entities_v2`): the entities named, each with the aspects named (none: all of them). Entities that do not exist are left out." +
          scopeNote('read'),
        tags,
        path: { entityName: PATH.entityName },
        body: {
          description: '`{"urns": [...], "aspectNames": [...], "withSystemMetadata": false}`.',
          schema: ref('BatchReadV2'),
          examples: { one: { summary: 'Two aspects of a dataset', value: { urns: [DATASET_URN], aspectNames: ['datasetProperties', 'structuredProperties'], withSystemMetadata: false } } },
        },
        responses: {
          200: {
            description: 'The entities found, each with its aspects under `aspects`.',
            schema: { type: 'object', properties: { entities: { type: 'array', items: ref('EntityV2') } } },
            examples: { found: { summary: 'Found', value: { entities: [entityBody('v2', { structuredProperties: STRUCTURED_PROPERTIES })] } } },
          },
          400: ERRORS.validation(INVALID),
          ...bodyErrors(),
          ...commonErrors('read', 'entities.batchGet'),
        },
      },
    };
  }
  return {
    [`POST ${base}/scroll`]: scrollDoc('scrollEntitiesV3', 'Scroll entities across types', false, tags),
    [`POST ${base}/{entityName}/scroll`]: scrollDoc('scrollEntitiesOfTypeV3', 'Scroll entities of a type', true, tags),
  };
}
