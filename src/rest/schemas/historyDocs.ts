/** Documentation of the value history and bulk edit routes (rest/historyRoutes.ts, docs/contract.md §13). */
import { DATASET_URN, OTHER_DATASET_URN, PROPERTY_URN } from './examples.js';
import { bodyErrors, commonErrors, ERRORS, ref, scopeNote, type RouteDoc } from './routeDoc.js';

const ENTRY = {
  urn: DATASET_URN,
  version: 0,
  time: 1768210200000,
  actor: 'urn:li:corpuser:ana@example.com',
  actorType: 'person',
  via: 'cli',
  changes: [{ propertyUrn: PROPERTY_URN, before: [{ double: 30 }], after: [{ double: 60 }] }],
};

export const HISTORY_ROUTE_DOCS: Record<string, RouteDoc> = {
  'GET /openapi/v3/history': {
    operationId: 'valueHistory',
    summary: 'Who changed which value when',
    description:
      "The history of values, newest first, in pages: of an entity (`urn`), of one property on it (`urn` and `property`), or of a property across every entity (`property` alone). Each entry is one write: its time, actor, the interface it came through (`rest-v2`, `rest-v3`, `restli`, `graphql`, `cli`, `console`, `system`) and, per property, the values before and after. Values of soft-deleted or deleted properties are left out; a soft-deleted property's own history is refused." +
      scopeNote('read'),
    tags: ['History'],
    query: {
      urn: { description: 'The entity.', schema: { type: 'string' }, example: DATASET_URN },
      property: { description: 'A structured property: urn or qualified name.', schema: { type: 'string' }, example: 'io.acryl.privacy.retentionTime' },
      count: { description: 'Entries per page (default 20, at most 1000).', schema: { type: 'integer', minimum: 0 } },
      scrollId: { description: 'The `scrollId` of the previous page.', schema: { type: 'string' } },
    },
    responses: {
      200: { description: 'A page of history.', schema: ref('ValueHistory'), examples: { entity: { summary: "An entity's last write", value: { scrollId: 'WzE3NjgyMTAyMDAwMDAsInVybiIsMl0', entries: [ENTRY] } } } },
      400: ERRORS.validation({ neither: { summary: 'Nothing named', value: { error: 'Validation Error', message: 'Name an entity (urn), a structured property (property), or both' } } }),
      404: ERRORS.notFound({ property: { summary: 'No such property', value: { error: 'Not Found', message: 'Structured property urn:li:structuredProperty:io.none does not exist' } } }),
      ...commonErrors('read', 'history.valueHistory'),
    },
  },
  'POST /openapi/v3/values/bulk': {
    operationId: 'bulkEditValues',
    summary: "Set, add or remove one property's values on many entities",
    description:
      "A bulk edit: one property's values set (`set`), added to (`add`) or removed (`remove`; with no value, the property) on every entity a search selects (`query`, over the property's entity types unless `types` says otherwise) or on the entities named (`urns`), at most 10,000 (`limit`). Other properties are kept. The job keeps the search, not its hits, and resolves it page by page as it runs; an entity changed since the selection was fixed is edited on its values as they are at its turn, or, when it no longer matches the search, skipped and reported. Each entity is changed through the same write path as a single write, so every rule holds; an entity the rules refuse (one that does not exist, or of a type the property does not apply to, included) is reported with the reason and the others change. Answers 202 with the job to follow at `GET /openapi/v3/jobs/{id}` (its `result` holds the counts); with `dryRun: true`, 200 with every entity's change decided and nothing written. A principal may have 10 jobs queued or running at once (429 beyond)." +
      scopeNote('write'),
    tags: ['History'],
    body: {
      description: 'The edit.',
      schema: ref('BulkEdit'),
      examples: {
        set: { summary: 'Set a value on a search\'s results', value: { query: 'platform:hive AND origin:PROD', property: 'io.acryl.privacy.retentionTime', operation: 'set', values: [60] } },
        preview: { summary: 'Preview removing a value from two datasets', value: { urns: [DATASET_URN, OTHER_DATASET_URN], property: PROPERTY_URN, operation: 'remove', values: [{ double: 30 }], dryRun: true } },
      },
    },
    responses: {
      200: {
        description: 'The dry run.',
        schema: ref('BulkEditPreview'),
        examples: { preview: { summary: 'One entity would change', value: { dryRun: true, propertyUrn: PROPERTY_URN, operation: 'remove', entities: 2, limit: 10000, changed: 1, unchanged: 1, refused: [], changes: [{ urn: DATASET_URN, before: [{ double: 30 }], after: [] }] } } },
      },
      202: {
        description: 'The job is queued.',
        schema: { type: 'object', properties: { jobId: { type: 'string' }, job: { type: 'string' }, propertyUrn: { type: 'string' }, operation: { type: 'string' }, entities: { type: 'integer' }, limit: { type: 'integer' } } },
        examples: { queued: { summary: 'Queued', value: { jobId: '7', job: '/jobs/7', propertyUrn: PROPERTY_URN, operation: 'set', entities: 40, limit: 10000 } } },
      },
      400: ERRORS.validation({
        value: { summary: 'A value the definition refuses', value: { error: 'Validation Error', message: `Property: ${PROPERTY_URN}, value: {double=45.0} should be one of [{double=30.0}, {double=60.0}]` } },
        tooMany: { summary: 'Too many entities', value: { error: 'Validation Error', message: 'The query selects 12000 entities; a bulk edit may change at most 10000: narrow the selection (or split it)' } },
      }),
      404: ERRORS.notFound({ property: { summary: 'No such property', value: { error: 'Not Found', message: 'Structured property urn:li:structuredProperty:io.none does not exist' } } }),
      ...bodyErrors(),
      ...commonErrors('write', 'bulkEdits.edit'),
    },
  },
};
