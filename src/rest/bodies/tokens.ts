/** The body of `POST /openapi/v3/tokens` (docs/contract.md §10). */
import * as z from 'zod';
import { SCOPES } from '../../domain/accessToken.js';
import { LIMITS } from '../../domain/limits.js';
import { optionalText } from '../../domain/shapes/common.js';

/** The latest time a JavaScript Date (and so a stored expiry) can hold: 275,760 years from 1970. */
export const MAX_EXPIRES_AT = 8_640_000_000_000_000;

export const createTokenShape = z
  .strictObject({
    name: z.string().min(1).max(LIMITS.nameLength).describe('A machine token acts as `urn:li:corpuser:<name>`; a personal token acts as its owner, and the name only labels it.'),
    scope: z.string().max(20).describe(`One of ${SCOPES.join(', ')}.`).meta({ enum: [...SCOPES] }),
    description: optionalText(LIMITS.descriptionLength),
    expiresAt: z
      .number()
      .max(MAX_EXPIRES_AT, { error: 'is later than any date can be; give milliseconds since the epoch, e.g. 1893456000000 (2030-01-01)', abort: true })
      .int()
      .min(0)
      .nullish()
      .describe('Milliseconds since the epoch; absent: never expires.'),
    type: z
      .string()
      .max(20)
      .nullish()
      .describe('`personal` (a signed-in person\'s own token, up to their scope) or `machine` (admin scope); absent: personal for a signed-in person, machine otherwise.')
      .meta({ enum: ['personal', 'machine'] }),
  })
  .meta({ id: 'CreateAccessToken', description: 'The token to issue.' });
