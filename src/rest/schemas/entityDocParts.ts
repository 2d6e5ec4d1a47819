/**
 * The pieces the entity routes' documentation is made of (entityDocs.ts,
 * datahubEntityDocs.ts): path and query parameters, shared error examples, example
 * bodies per API version.
 */
import type { ApiVersion } from '../shapes.js';
import { ENTITY_NAMES } from './components.js';
import { DATASET_URN, INVALID_URN, OTHER_DATASET_URN, PROPERTY_DEFINITION, PROPERTY_URN, STRUCTURED_PROPERTIES, TEST_INFO, TEST_URN } from './examples.js';
import { ref, type Examples, type ParamDoc, type ResponseDoc } from './routeDoc.js';

/** The aspects with schemas of their own, then any other aspect. */
export const ASPECT_SCHEMAS = ['PropertyDefinition', 'StructuredProperties', 'Status', 'TestInfo', 'TestResults', 'Aspect'];

export const PATH: Record<'entityName' | 'urn' | 'aspect', ParamDoc> = {
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

export const bool = (description: string, fallback?: boolean): ParamDoc => ({
  description,
  schema: { type: 'boolean', ...(fallback === undefined ? {} : { default: fallback }) },
});

export const QUERY = {
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
export const TRACE_HEADERS: ResponseDoc['headers'] = {
  traceparent: { description: 'W3C trace context `00-<trace id>-<span id>-01` of the writes (when the request wrote); pass the trace id to `POST /openapi/v1/trace/write/{traceId}`.', schema: { type: 'string' } },
};

export const NOT_FOUND_ENTITY: Examples = {
  entity: { summary: 'No such entity', value: { error: 'Not Found', message: `Entity ${DATASET_URN} does not exist` } },
  type: { summary: 'Unknown entity type in the path', value: { error: 'Not Found', message: 'Unknown entity type foo' } },
};

export const INVALID: Examples = { urn: { summary: 'Unparsable URN', value: INVALID_URN } };

export const WRITE_FAILURES: Examples = {
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
export function entityBody(version: ApiVersion, aspects: Record<string, unknown>, urn = DATASET_URN): unknown {
  const wrapped = Object.fromEntries(Object.entries(aspects).map(([name, value]) => [name, { value }]));
  return version === 'v3' ? { urn, ...wrapped } : { urn, aspects: wrapped };
}

export const entitySchema = (version: ApiVersion) => ref(version === 'v3' ? 'EntityV3' : 'EntityV2');

export function aspectBodyExamples(version: ApiVersion): Examples {
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

export function batchExamples(version: ApiVersion): Examples {
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
