/**
 * Named schemas of the OpenAPI document (components.schemas), generated from the zod
 * schemas that parse the bodies (domain/shapes/, rest/bodies/) with zod's own
 * JSON Schema output, so the document cannot drift from what the server accepts.
 * The response-only schemas below are written in zod too, for one source.
 */
import * as z from 'zod';
import { ENTITY_TYPES } from '../../domain/registry/entityTypes.js';
import { SCOPES } from '../../domain/accessToken.js';
import '../../domain/shapes/propertyDefinition.js';
import '../../domain/shapes/status.js';
import '../../domain/shapes/structuredProperties.js';
import '../../domain/shapes/testInfo.js';
import { testResultShape } from '../../domain/shapes/testResults.js';
import '../../domain/shapes/jsonPatch.js';
import '../bodies/datahubBatches.js';
import '../bodies/entities.js';
import '../bodies/evaluate.js';
import '../bodies/testRun.js';
import '../bodies/tokens.js';
import '../bodies/bulkEdit.js';
import type { JsonSchema } from './routeDoc.js';

export const ENTITY_NAMES: readonly string[] = ENTITY_TYPES.map((t) => t.name);

z.strictObject({
  error: z
    .string()
    .describe(
      'The kind: `Validation Error`, `Invalid urn!: <urn>`, `Unauthorized`, `Forbidden`, `Not Found`, `Precondition Error`, `Payload Too Large`, `URI Too Long`, `Unsupported Media Type`, `Too Many Requests`, `Internal server error occurred`, or `No endpoint <METHOD> <path>.` for an unknown route.',
    ),
  message: z.string().describe('What went wrong and how to fix it, naming the field at fault; user input is quoted up to 200 characters.'),
}).meta({ id: 'ErrorResponse', description: 'Every error answer (docs/contract.md §4, §12), the framework\'s own included. Never carries a stack trace or SQL.' });

z.strictObject({
  scrollId: z.string().optional(),
  entities: z.array(z.record(z.string(), z.unknown())),
}).meta({ id: 'EntityPage', description: 'A page of entities; pass `scrollId` back for the next page (absent on the last page).' });

const jobFields = {
  id: z.string(),
  kind: z.string().meta({ example: 'cleanup-property-values' }),
  status: z.enum(['pending', 'running', 'done', 'failed']),
  propertyUrn: z.string().nullable().describe('The structured property the job works for (a cleanup, a bulk edit), when it names one.'),
  owner: z.string().nullable().describe('The principal who asked for the job (a bulk edit, a test run); null for propgraph\'s own jobs.'),
  attempts: z.int(),
  total: z.int().nullable(),
  done: z.int(),
  remaining: z.int().nullable().describe('Entities still to process, when known.'),
  lastError: z.string().nullable(),
  counts: z.record(z.string(), z.number()).nullable().describe('The result\'s counts so far (a bulk edit\'s `changed`, `unchanged`, `refusedCount`, `skipped`, `changedSinceSelection`); null when the job reports none.'),
  createdOn: z.string().meta({ format: 'date-time' }),
  finishedOn: z.string().nullable().meta({ format: 'date-time' }),
};

z.object(jobFields).meta({ id: 'JobSummary', description: 'A background job as the listing shows it: what it is, whose, how far it got; never its inputs or its whole result (read the job by its id).' });

z.object({
  ...jobFields,
  payload: z.record(z.string(), z.unknown()).describe('The job\'s inputs, as long as it needs them: a finished bulk edit keeps what describes it (property, operation, how many values, the query), not its values or the entities it named.'),
  result: z.record(z.string(), z.unknown()).nullable().describe('What the job did, for jobs that say: a bulk edit\'s counts and `refused` (`[{urn, reason}]`, the first thousand entities left as they were, with the reason).'),
}).meta({ id: 'Job', description: 'A background job (value cleanup after a hard delete or a breaking version, a bulk edit of values, a test run, an index rebuild).' });

const valueImpact = z
  .strictObject({
    entities: z.int().describe('Entities holding values the change removes.'),
    values: z.int().describe('The values they hold.'),
    byEntityType: z.record(z.string(), z.int()).describe('Entities by entity type.'),
  })
  .meta({ id: 'ValueImpact', description: 'What a change would remove of the values entities hold.' });

z.strictObject({ dryRun: z.literal(true), impact: valueImpact }).meta({ id: 'DryRun', description: 'The answer to `dryRun=true`: nothing was changed.' });

const valueChange = z.strictObject({
  propertyUrn: z.string(),
  before: z.array(z.record(z.string(), z.unknown())).nullable().describe('Typed values before (empty: none); null when history retention deleted the version before.'),
  after: z.array(z.record(z.string(), z.unknown())).describe('Typed values after (empty: removed).'),
});

z.strictObject({
  scrollId: z.string().optional().describe('Pass back for the next page; absent on the last.'),
  entries: z.array(
    z.strictObject({
      urn: z.string(),
      version: z.int().describe('The structuredProperties version this write stored: 0 the latest, 1..n the earlier ones, oldest first.'),
      time: z.int().describe('Milliseconds since the epoch.'),
      actor: z.string(),
      actorType: z.enum(['person', 'machine', 'system']).describe('Who the actor is, read from its urn: a person (`urn:li:corpuser:<sub or email>`), a machine token (`urn:li:corpuser:__service_<name>`) or the system. Entries written before machine tokens had a namespace of their own keep the actor they were written with.'),
      via: z.string().nullable().describe('rest-v2, rest-v3, restli, graphql, cli, console or system; null for versions written before it was recorded.'),
      changes: z.array(valueChange),
    }),
  ),
}).meta({ id: 'ValueHistory', description: 'Writes of values, newest first, each with who, when, through which interface, and what changed.' });

z.strictObject({
  dryRun: z.literal(true),
  propertyUrn: z.string(),
  operation: z.string(),
  entities: z.int().describe('Entities selected: the count before apply.'),
  limit: z.int().describe('The most entities one bulk edit may select.'),
  changed: z.int(),
  unchanged: z.int(),
  refused: z.array(z.strictObject({ urn: z.string(), reason: z.string() })),
  changes: z.array(z.strictObject({ urn: z.string(), before: z.array(z.record(z.string(), z.unknown())), after: z.array(z.record(z.string(), z.unknown())) })),
}).meta({ id: 'BulkEditPreview', description: 'A bulk edit decided for every entity and not written: counts, refusals and the first hundred changes.' });

z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  scope: z.enum(SCOPES),
  createdAt: z.int().describe('Milliseconds since the epoch.'),
  createdBy: z.string(),
  expiresAt: z.int().nullable(),
  revoked: z.boolean(),
  lastUsedAt: z.int().nullable(),
  type: z.enum(['machine', 'personal', 'session']).describe('`machine` (acts as `urn:li:corpuser:__service_<name>`), `personal` or `session` (act as their owner: a signed-in person, or for a console session opened with a machine token, that machine).'),
  owner: z.string().nullable().describe('Whom a personal or session token belongs to; null for machine tokens.'),
  principal: z.string().describe('Who the token acts as, recorded on everything it writes: `urn:li:corpuser:__service_<name>` for a machine token, its owner otherwise.'),
  parentId: z.string().nullable().describe('The token a console session was opened with (the session ends with it); null otherwise.'),
}).meta({ id: 'AccessToken', description: 'What the server keeps about a token (never the secret).' });

z.object({ passing: z.array(testResultShape), failing: z.array(testResultShape) }).meta({
  id: 'EvaluationResult',
  description: 'Tests in scope for the entity, split by outcome; tests out of scope appear in neither list.',
});

/** Every schema registered with an id, as OpenAPI 3.0 components referring to each other by `$ref`. */
function componentSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    target: 'openapi-3.0',
    // Request bodies are documented as clients send them, before any transform.
    io: 'input',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  });
  return Object.fromEntries(Object.entries(schemas).map(([id, { $id: _, ...schema }]) => [id, schema as JsonSchema]));
}

export const COMPONENT_SCHEMAS: Record<string, JsonSchema> = componentSchemas();

export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http' as const,
    scheme: 'bearer',
    description:
      'An access token (`pgt_...`). On its first start the server writes an admin token to `<DATA_DIR>/root-token` (or uses `ROOT_TOKEN`); issue narrower ones with `POST /openapi/v3/tokens`.',
  },
};
