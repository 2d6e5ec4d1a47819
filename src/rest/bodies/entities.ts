/**
 * The bodies of the entity routes (docs/contract.md §4). v2 and v3 differ by wrapping only, so both
 * are derived here from one envelope: v3 takes `{"value": <aspect>}` where v2 takes
 * the aspect itself, and a v3 batch entity holds its envelopes beside `urn` where v2
 * nests them under `aspects`. Each aspect's own shape is checked by its handler
 * (domain/shapes/), whatever interface wrote it.
 */
import * as z from 'zod';
import { urnText } from '../../domain/shapes/common.js';
import { migrationShape } from '../../domain/valueMigration.js';
import type { ApiVersion } from '../apiVersion.js';

export const aspectShape = z.record(z.string(), z.unknown()).meta({
  id: 'Aspect',
  description:
    'An aspect value. `propertyDefinition`, `structuredProperties`, `status`, `testInfo` and `testResults` have their own schemas and are fully validated; other aspects (`datasetProperties`, `schemaMetadata`, ...) are stored as given after a shape check.',
});

export const aspectEnvelopeShape = z
  .strictObject({
    value: z
      .custom<unknown>((v) => v !== undefined, { error: 'is required: a v3 aspect body is {"value": <the aspect>}, so wrap the aspect in "value" (v2 takes it unwrapped)' })
      .meta({ anyOf: ['PropertyDefinition', 'StructuredProperties', 'Status', 'TestInfo', 'TestResults', 'Aspect'].map((id) => ({ $ref: `#/components/schemas/${id}` })) }),
    systemMetadata: z.record(z.string(), z.unknown()).nullish().describe('Returned with `systemMetadata=true`; `version` is the aspect revision.'),
    headers: z
      .looseObject({
        'If-Version-Match': z
          .union([z.string().max(100), z.number()], { error: 'must be an aspect revision such as "1" (or "-1": only if absent)' })
          .optional()
          .describe('Write only if the stored revision is this one (`-1`: only if absent); else 412.'),
      })
      .nullish(),
    migration: migrationShape
      .optional()
      .describe(
        'propertyDefinition only: instead of a new `version`, rules that keep the stored values the change would break: `remap` (a list of `{from, to}` typed values), `convert` (numbers to strings or strings to numbers, for a value type change), `dropInvalid` (drop only the values the new definition refuses). `dryRun=true` answers what each rule does.',
      ),
  })
  .meta({ id: 'AspectEnvelope', description: 'A v3 aspect: the value, plus optional system metadata, headers and (for a definition) a migration.' });

export type AspectEnvelope = z.output<typeof aspectEnvelopeShape>;

const listOfEntities = (example: string) => ({
  error: (iss: { code: string; input?: unknown }) => (iss.code === 'invalid_type' ? `must be a JSON list of entities, e.g. ${example}` : undefined),
});

export const entityV3Shape = z
  .object({ urn: urnText })
  .catchall(aspectEnvelopeShape)
  .meta({ id: 'EntityV3', description: 'A v3 entity: its URN and, per aspect name, an aspect envelope.' });

export const entityV2Shape = z
  .strictObject({ urn: urnText, aspects: z.record(z.string().max(200), aspectEnvelopeShape).optional() })
  .meta({ id: 'EntityV2', description: 'A v2 entity: its URN and its aspects under `aspects`.' });

const BATCH: Record<ApiVersion, z.ZodType<Array<{ urn: string } & Record<string, unknown>>>> = {
  v3: z.array(entityV3Shape, listOfEntities('[{"urn": "<urn>", "status": {"value": {"removed": false}}}]')),
  v2: z.array(entityV2Shape, listOfEntities('[{"urn": "<urn>", "aspects": {"status": {"value": {"removed": false}}}}]')),
};

/** The body of a batch write in the given version. */
export const batchShape = (version: ApiVersion) => BATCH[version];
