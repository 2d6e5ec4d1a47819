/**
 * The `testInfo` aspect's shape (docs/contract.md §7). The definition's JSON text is parsed by
 * domain/testDefinition.ts, whose grammar errors name their path inside it.
 */
import * as z from 'zod';
import { LIMITS } from '../limits.js';
import { TEST_LIMITS } from '../testLimits.js';
import { optionalText } from './common.js';

const requiredName = z
  .string()
  .max(LIMITS.nameLength)
  .refine((s) => s.trim() !== '', { error: 'must not be blank' });

/** DataHub's audit and scheduling objects: kept as given, never interpreted. */
const keptObject = z.record(z.string(), z.unknown());

export const testInfoShape = z
  .strictObject({
    name: requiredName,
    category: requiredName,
    description: optionalText(LIMITS.descriptionLength),
    definition: z.strictObject(
      {
        type: z.literal('JSON').optional(),
        json: z.string().max(TEST_LIMITS.definitionLength).describe('The test definition, as a JSON string (docs/metadata-tests.md).'),
        md5: z.string().max(100).optional(),
      },
      { error: (iss) => (iss.input === undefined ? 'is required: {"type": "JSON", "json": "<definition>"}' : undefined) },
    ),
    lastUpdatedTimestamp: z.number().optional(),
    created: keptObject.optional(),
    lastUpdated: keptObject.optional(),
    status: keptObject.optional(),
    source: keptObject.optional(),
    schedule: keptObject.optional(),
  })
  .meta({ id: 'TestInfo', description: 'The `testInfo` aspect of a `test` entity (docs/contract.md §7, docs/metadata-tests.md). Stored exactly as given.' });
