/**
 * Named schemas of the OpenAPI document (components.schemas): the bodies REST
 * clients exchange (SPEC 2, 3, 4, 7, 10). Documentation only: the routes parse their
 * input themselves (rest/shapes.ts, domain/) and answer with typed errors.
 */
import { ENTITY_TYPES } from '../../domain/entityTypes.js';
import { ref, type JsonSchema } from './routeDoc.js';

const URN = { type: 'string', description: 'A URN, e.g. `urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)`.' };

export const ENTITY_NAMES: readonly string[] = ENTITY_TYPES.map((t) => t.name);

export const COMPONENT_SCHEMAS: Record<string, JsonSchema> = {
  ErrorResponse: {
    type: 'object',
    description: 'Every error answer (SPEC 4). Never carries a stack trace or SQL.',
    required: ['error'],
    properties: {
      error: {
        type: 'string',
        description:
          'The kind: `Validation Error`, `Invalid urn!: <urn>`, `Unauthorized`, `Forbidden`, `Not Found`, `Precondition Error`, `Payload Too Large`, `Unsupported Media Type`, `Too Many Requests`, `Internal server error occurred`, or `No endpoint <METHOD> <path>.` for an unknown route.',
      },
      message: { type: 'string', description: 'What went wrong, for people.' },
    },
  },
  TypedValue: {
    type: 'object',
    description:
      'A typed value: `{"double": n}` for number properties, `{"string": s}` for string, rich_text, date (`YYYY-MM-DD`) and urn properties. The property definition decides the type; a numeric string is accepted for a number property. Responses write doubles with a decimal part (`30.0`).',
    minProperties: 1,
    maxProperties: 1,
    properties: { double: { type: 'number' }, string: { type: 'string' } },
  },
  PropertyDefinition: {
    type: 'object',
    description: 'The `propertyDefinition` aspect of a `structuredProperty` entity (SPEC 2).',
    required: ['qualifiedName', 'valueType', 'entityTypes'],
    properties: {
      qualifiedName: { type: 'string', description: 'Equals the URN id; dots allowed, no spaces; never changes.' },
      displayName: { type: 'string' },
      description: { type: 'string' },
      valueType: {
        type: 'string',
        description: '`urn:li:dataType:svc.{string,rich_text,number,date,urn}` (also accepted: `datahub.<x>` and the bare short form).',
        enum: ['urn:li:dataType:svc.string', 'urn:li:dataType:svc.rich_text', 'urn:li:dataType:svc.number', 'urn:li:dataType:svc.date', 'urn:li:dataType:svc.urn'],
      },
      entityTypes: {
        type: 'array',
        minItems: 1,
        items: { type: 'string', description: '`urn:li:entityType:svc.<entityName>`' },
        description: 'The entity types that may carry values of this property.',
      },
      cardinality: { type: 'string', enum: ['SINGLE', 'MULTIPLE'], default: 'SINGLE' },
      allowedValues: {
        type: 'array',
        description: 'When present, values must be one of these (typed like the property).',
        items: { type: 'object', required: ['value'], properties: { value: ref('TypedValue'), description: { type: 'string' } } },
      },
      typeQualifier: {
        type: 'object',
        description: 'For `urn` properties: the entity types a value may name.',
        properties: { allowedTypes: { type: 'array', items: { type: 'string' } } },
      },
      immutable: { type: 'boolean', default: false, description: 'Values cannot change or be removed once set.' },
      version: {
        type: 'string',
        pattern: '^[0-9]{14}$',
        description: '`yyyyMMddhhmmss`. A greater version allows a breaking change; values written under older versions disappear.',
      },
    },
  },
  StructuredProperties: {
    type: 'object',
    description:
      "The `structuredProperties` aspect of an entity (SPEC 3). POST replaces the whole aspect; PATCH with `arrayPrimaryKeys` addresses one entry by property URN.",
    required: ['properties'],
    properties: {
      properties: {
        type: 'array',
        items: {
          type: 'object',
          required: ['propertyUrn', 'values'],
          properties: { propertyUrn: URN, values: { type: 'array', minItems: 1, items: ref('TypedValue') } },
        },
      },
    },
  },
  Status: {
    type: 'object',
    description: 'The `status` aspect. On a structured property, `removed: true` is a soft delete (reversible).',
    required: ['removed'],
    properties: { removed: { type: 'boolean' } },
  },
  TestInfo: {
    type: 'object',
    description: 'The `testInfo` aspect of a `test` entity (SPEC 7, docs/metadata-tests.md).',
    required: ['name', 'category', 'definition'],
    properties: {
      name: { type: 'string' },
      category: { type: 'string' },
      description: { type: 'string' },
      definition: {
        type: 'object',
        required: ['json'],
        properties: { type: { type: 'string', enum: ['JSON'] }, json: { type: 'string', description: 'The test definition, as a JSON string.' } },
      },
    },
  },
  TestResults: {
    type: 'object',
    description: 'The `testResults` aspect, stored by an evaluation with `push: true`.',
    properties: { passing: { type: 'array', items: ref('TestResult') }, failing: { type: 'array', items: ref('TestResult') } },
  },
  TestResult: {
    type: 'object',
    required: ['test', 'type'],
    properties: { test: URN, type: { type: 'string', enum: ['SUCCESS', 'FAILURE'] } },
  },
  Aspect: {
    type: 'object',
    additionalProperties: true,
    description:
      'An aspect value. `propertyDefinition`, `structuredProperties`, `status` and `testInfo` are fully validated (see their schemas); other aspects (`datasetProperties`, `schemaMetadata`, ...) are stored as given after a shape check.',
  },
  AspectEnvelope: {
    type: 'object',
    description: 'A v3 aspect: the value, plus optional system metadata and headers.',
    required: ['value'],
    properties: {
      value: ref('Aspect'),
      systemMetadata: { type: 'object', additionalProperties: true, description: 'Returned with `systemMetadata=true`; `version` is the aspect revision.' },
      headers: {
        type: 'object',
        properties: { 'If-Version-Match': { type: 'string', description: 'Write only if the stored revision is this one (`-1`: only if absent); else 412.' } },
      },
    },
  },
  EntityV3: {
    type: 'object',
    description: 'A v3 entity: its URN and, per aspect name, an aspect envelope.',
    required: ['urn'],
    properties: { urn: URN },
    additionalProperties: ref('AspectEnvelope'),
  },
  EntityV2: {
    type: 'object',
    description: 'A v2 entity: its URN and its aspects under `aspects`.',
    required: ['urn'],
    properties: { urn: URN, aspects: { type: 'object', additionalProperties: ref('AspectEnvelope') } },
  },
  EntityPage: {
    type: 'object',
    description: 'A page of entities; pass `scrollId` back for the next page (absent on the last page).',
    required: ['entities'],
    properties: { scrollId: { type: 'string' }, entities: { type: 'array', items: { type: 'object', additionalProperties: true } } },
  },
  JsonPatch: {
    type: 'object',
    description:
      'A JSON patch (RFC 6902 operations). With `arrayPrimaryKeys` `{"properties": ["propertyUrn"]}`, `/properties/<property urn>` (the URN not escaped) addresses one entry: `add` inserts or replaces its values, `remove` deletes it, others stay. A bare list of operations is accepted too.',
    required: ['patch'],
    properties: {
      patch: {
        type: 'array',
        items: {
          type: 'object',
          required: ['op', 'path'],
          properties: { op: { type: 'string', enum: ['add', 'remove', 'replace', 'test'] }, path: { type: 'string' }, value: {} },
        },
      },
      arrayPrimaryKeys: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 1 } },
    },
  },
  Job: {
    type: 'object',
    description: 'A background job (value cleanup after a hard delete or a breaking version, index rebuild).',
    properties: {
      id: { type: 'string' },
      kind: { type: 'string', example: 'cleanup-property-values' },
      payload: { type: 'object', additionalProperties: true },
      status: { type: 'string', enum: ['pending', 'running', 'done', 'failed'] },
      attempts: { type: 'integer' },
      total: { type: 'integer', nullable: true },
      done: { type: 'integer' },
      remaining: { type: 'integer', nullable: true, description: 'Entities still to process, when known.' },
      lastError: { type: 'string', nullable: true },
      createdOn: { type: 'string', format: 'date-time' },
      finishedOn: { type: 'string', format: 'date-time', nullable: true },
    },
  },
  AccessToken: {
    type: 'object',
    description: 'What the server keeps about a token (never the secret).',
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string', nullable: true },
      scope: { type: 'string', enum: ['read', 'write', 'admin'] },
      createdAt: { type: 'integer', description: 'Milliseconds since the epoch.' },
      createdBy: { type: 'string' },
      expiresAt: { type: 'integer', nullable: true },
      revoked: { type: 'boolean' },
      lastUsedAt: { type: 'integer', nullable: true },
    },
  },
  EvaluationResult: {
    type: 'object',
    description: 'Tests in scope for the entity, split by outcome; tests out of scope appear in neither list.',
    properties: { passing: { type: 'array', items: ref('TestResult') }, failing: { type: 'array', items: ref('TestResult') } },
  },
};

export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http' as const,
    scheme: 'bearer',
    description:
      'An access token (`pgt_...`). On its first start the server writes an admin token to `<DATA_DIR>/root-token` (or uses `ROOT_TOKEN`); issue narrower ones with `POST /openapi/v3/tokens`.',
  },
};
