/**
 * Documentation of DataHub's Rest.li routes (src/restli/), the dialect DataHub's own
 * Python client (the `datahub` CLI and SDK) speaks: see docs/datahub-compatibility.md.
 */
import { DATASET_KEY, DATASET_URN, PROPERTY_URN, STRUCTURED_PROPERTIES, SYSTEM_METADATA } from './examples.js';
import { bodyErrors, commonErrors, ERRORS, scopeNote, type RouteDoc } from './routeDoc.js';

const TAG = ['DataHub Rest.li'];
const DATASET_PROPERTIES = { name: 'orders', description: 'Orders of the web shop', customProperties: {} };
const STATUS_JSON = JSON.stringify({ removed: false });
const proposal = (changeType: string, aspectName: string, value: string, contentType = 'application/json') => ({
  entityType: 'dataset',
  entityUrn: DATASET_URN,
  changeType,
  aspectName,
  aspect: { value, contentType },
  systemMetadata: { lastObserved: SYSTEM_METADATA.lastObserved, runId: 'no-run-id-provided' },
});

const proposalSchema = {
  type: 'object',
  required: ['entityType', 'entityUrn', 'changeType', 'aspectName'],
  properties: {
    entityType: { type: 'string' },
    entityUrn: { type: 'string' },
    changeType: { type: 'string', enum: ['UPSERT', 'CREATE', 'CREATE_ENTITY', 'PATCH', 'DELETE'] },
    aspectName: { type: 'string' },
    aspect: {
      type: 'object',
      properties: { value: { type: 'string', description: 'The aspect as JSON text (a JSON patch for PATCH).' }, contentType: { type: 'string' } },
    },
    systemMetadata: { type: 'object', additionalProperties: true },
  },
};

const restliAsync = { type: 'string', enum: ['true', 'false'], description: 'Return at commit without waiting for the search index; unset: the server default.' };

const SUCCESS = {
  200: { description: 'Applied.', schema: { type: 'object', properties: { value: { type: 'string' } } }, examples: { success: { summary: 'Applied', value: { value: 'success' } } } },
};

const badJson = {
  badJson: {
    summary: 'Aspect text that is not JSON',
    value: { error: 'Validation Error', message: "proposal.aspect.value is not valid JSON (Unexpected token 'o', \"not json\" is not valid JSON); send the status aspect as JSON text" },
  },
};

export const RESTLI_ROUTE_DOCS: Record<string, RouteDoc> = {
  'GET /config': {
    operationId: 'restliConfig',
    summary: 'The DataHub handshake',
    description:
      "What DataHub's client asks first (`DataHubGraph.test_connection`, every CLI command): `noCode: \"true\"` says this is the metadata service, and `versions[\"acryldata/datahub\"].version` is the DataHub release whose client contract propgraph follows (from 1.0.1 on, the SDK writes through OpenAPI v3)." +
      scopeNote('read'),
    tags: TAG,
    responses: {
      200: {
        description: 'The server configuration, in DataHub GMS shape.',
        schema: { type: 'object', properties: { noCode: { type: 'string', enum: ['true'] }, versions: { type: 'object', additionalProperties: true } }, additionalProperties: true },
        examples: {
          config: {
            summary: 'propgraph',
            value: { noCode: 'true', patchCapable: true, telemetry: { enabledCli: false, enabledIngestion: false }, datahub: { serverType: 'prod', serverEnv: 'core' }, versions: { 'acryldata/datahub': { version: 'v1.6.0' }, propgraph: { version: '0.1.0' } } },
          },
        },
      },
      ...commonErrors('read', 'config'),
    },
  },
  'GET /aspects/{urn}': {
    operationId: 'restliGetAspect',
    summary: 'Read one aspect (Rest.li)',
    description:
      "DataHub's `GET /aspects/{urn}?aspect=<name>&version=N`: the aspect at version N (0, the default, is the latest; 1..n are the earlier ones, oldest first), wrapped in its DataHub record class name as DataHub's client reads it. Key aspects (`datasetKey`, ...) are derived from the urn. 404 when the entity, the aspect, the version or the entity type does not exist." +
      scopeNote('read'),
    tags: TAG,
    path: { urn: { description: 'The entity urn, percent-encoded.', schema: { type: 'string' }, example: DATASET_URN } },
    query: {
      aspect: { description: 'The aspect name.', schema: { type: 'string' }, required: true, example: 'structuredProperties' },
      version: { description: '0 (default): the latest; 1..n: the earlier versions, oldest first.', schema: { type: 'integer', minimum: 0, default: 0 } },
    },
    responses: {
      200: {
        description: '`{"aspect": {<record class>: <aspect>}, "version": N}`.',
        schema: { type: 'object', properties: { aspect: { type: 'object', additionalProperties: true }, version: { type: 'integer' } } },
        examples: {
          values: { summary: 'Structured property values', value: { aspect: { 'com.linkedin.structured.StructuredProperties': STRUCTURED_PROPERTIES }, version: 0 } },
          earlier: { summary: 'The first version written', value: { aspect: { 'com.linkedin.structured.StructuredProperties': STRUCTURED_PROPERTIES }, version: 1 } },
          key: { summary: 'A key aspect', value: { aspect: { 'com.linkedin.metadata.key.DatasetKey': DATASET_KEY }, version: 0 } },
        },
      },
      400: ERRORS.validation({
        aspect: { summary: 'Unknown aspect', value: { error: 'Validation Error', message: 'Unknown aspect nope for entity type dataset; known aspects: datasetKey, status, structuredProperties, ...' } },
      }),
      404: ERRORS.notFound({ aspect: { summary: 'No such aspect', value: { error: 'Not Found', message: `Aspect ownership of ${DATASET_URN} does not exist` } } }),
      ...commonErrors('read', 'entities.getAspect'),
    },
  },
  'POST /aspects': {
    operationId: 'restliIngestProposal',
    summary: 'Apply metadata change proposals (Rest.li)',
    description:
      "DataHub's `POST /aspects?action=ingestProposal` (`{proposal, async}`) and `action=ingestProposalBatch` (`{proposals: [...], async}`). The aspect is JSON text in `aspect.value`. `changeType` UPSERT writes the aspect (creating the entity), CREATE only when the aspect is absent, CREATE_ENTITY only when the entity is absent, PATCH applies a JSON patch (`application/json-patch+json`: a list of operations or `{arrayPrimaryKeys, patch}`) to the aspect, DELETE deletes it. Every aspect is checked by the same rules as on REST v3; a batch is checked whole before the first proposal is applied." +
      scopeNote('write') +
      ' (admin to delete a key or definition aspect)',
    tags: TAG,
    query: { action: { description: 'What to do.', schema: { type: 'string', enum: ['ingestProposal', 'ingestProposalBatch'] }, required: true, example: 'ingestProposal' } },
    body: {
      description: '`{"proposal": MCP, "async": "false"}` or `{"proposals": [MCP, ...], "async": "false"}`.',
      schema: {
        type: 'object',
        properties: { proposal: proposalSchema, proposals: { type: 'array', items: proposalSchema }, async: restliAsync },
      },
      examples: {
        upsert: { summary: 'ingestProposal: UPSERT an aspect', value: { proposal: proposal('UPSERT', 'datasetProperties', JSON.stringify(DATASET_PROPERTIES)), async: 'false' } },
        patch: {
          summary: 'ingestProposal: PATCH an aspect',
          value: {
            proposal: proposal('PATCH', 'structuredProperties', JSON.stringify([{ op: 'add', path: `/properties/${PROPERTY_URN}`, value: { propertyUrn: PROPERTY_URN, values: [{ double: 30 }] } }]), 'application/json-patch+json'),
            async: 'false',
          },
        },
        batch: { summary: 'ingestProposalBatch', value: { proposals: [proposal('UPSERT', 'status', STATUS_JSON)], async: 'false' } },
      },
    },
    responses: {
      ...SUCCESS,
      400: ERRORS.validation(badJson),
      404: ERRORS.notFound({ property: { summary: 'Unknown property in a value', value: { error: 'Not Found', message: `Structured property ${PROPERTY_URN} does not exist` } } }),
      ...bodyErrors(),
      ...commonErrors('write', 'Writing status of urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)'),
    },
  },
  'GET /entitiesV2/{urn}': {
    operationId: 'restliGetEntity',
    summary: 'Read an entity (Rest.li)',
    description:
      "DataHub's `GET /entitiesV2/{urn}?aspects=List(a,b)`: the entity's aspects (all, or those listed) as `{name, type, version, value, systemMetadata}`, always with the key aspect. An entity that does not exist is answered with its key aspect alone, as DataHub does; `datahub get` reads that as not found." +
      scopeNote('read'),
    tags: TAG,
    path: { urn: { description: 'The entity urn, percent-encoded.', schema: { type: 'string' }, example: DATASET_URN } },
    query: { aspects: { description: 'Rest.li list of aspect names, e.g. `List(status,structuredProperties)`; unset: all.', schema: { type: 'string' }, example: 'List(structuredProperties)' } },
    responses: {
      200: {
        description: '`{entityName, urn, aspects: {<name>: {name, type, version, value, systemMetadata?}}}`.',
        schema: { type: 'object', properties: { entityName: { type: 'string' }, urn: { type: 'string' }, aspects: { type: 'object', additionalProperties: true } } },
        examples: {
          entity: {
            summary: 'A dataset with values',
            value: {
              entityName: 'dataset',
              urn: DATASET_URN,
              aspects: {
                datasetKey: { name: 'datasetKey', type: 'VERSIONED', version: 0, value: DATASET_KEY },
                structuredProperties: { name: 'structuredProperties', type: 'VERSIONED', version: 0, value: STRUCTURED_PROPERTIES, systemMetadata: SYSTEM_METADATA },
              },
            },
          },
        },
      },
      400: ERRORS.validation({ aspect: { summary: 'Unknown aspect', value: { error: 'Validation Error', message: 'Unknown aspect nope for entity type dataset; known aspects: datasetKey, status, structuredProperties, ...' } } }),
      404: ERRORS.notFound({ type: { summary: 'Unknown entity type', value: { error: 'Not Found', message: 'No entity "urn:li:telemetry:clientId": this server has no entity type "telemetry"' } } }),
      ...commonErrors('read', 'entities.getEntity'),
    },
  },
  'POST /entities': {
    operationId: 'restliEntityAction',
    summary: 'Hard-delete an entity, or its references (Rest.li)',
    description:
      "DataHub's `POST /entities?action=delete` (`{urn}`): hard-deletes the entity and all its aspects, as `DELETE /openapi/v3/entity/{entityName}/{urn}` does (a property's values are removed by a job); answers the rows removed. `action=deleteReferences` (`{urn, dryRun}`) lists the aspects of other entities that name the urn (tags in `globalTags` and schema fields, terms, owners, domains) and, unless `dryRun` is true, removes it from each of them." +
      scopeNote('admin') +
      ' for delete; deleteReferences needs read with `dryRun: true`, else write',
    tags: TAG,
    query: { action: { description: 'What to do.', schema: { type: 'string', enum: ['delete', 'deleteReferences'] }, required: true, example: 'delete' } },
    body: {
      description: '`{"urn"}` for delete, `{"urn", "dryRun"}` for deleteReferences.',
      schema: { type: 'object', required: ['urn'], properties: { urn: { type: 'string' }, dryRun: { type: 'boolean' } } },
      examples: {
        delete: { summary: 'action=delete', value: { urn: DATASET_URN } },
        references: { summary: 'action=deleteReferences, dry run', value: { urn: 'urn:li:tag:pii', dryRun: true } },
      },
    },
    responses: {
      200: {
        description: 'delete: `{"value": {urn, rows, timeseriesRows}}`; deleteReferences: `{"value": {total, relatedAspects: [{entity, aspect, relationship}]}}`.',
        schema: { type: 'object', properties: { value: { type: 'object', additionalProperties: true } } },
        examples: {
          delete: { summary: 'delete', value: { value: { urn: DATASET_URN, rows: 3, timeseriesRows: 0 } } },
          references: { summary: 'deleteReferences', value: { value: { total: 1, relatedAspects: [{ entity: DATASET_URN, aspect: 'globalTags', relationship: 'TaggedWith' }] } } },
        },
      },
      400: ERRORS.validation({ action: { summary: 'No action', value: { error: 'Validation Error', message: 'Query parameter action is required: delete or deleteReferences' } } }),
      404: ERRORS.notFound({ type: { summary: 'Unknown entity type', value: { error: 'Not Found', message: 'No entity "urn:li:telemetry:clientId": this server has no entity type "telemetry"' } } }),
      ...bodyErrors(),
      ...commonErrors('admin', 'Deleting urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)'),
    },
  },
};
