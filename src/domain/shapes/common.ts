/** Shapes several bodies share: typed values, audit stamps, bounded texts and URNs. */
import * as z from 'zod';
import { LIMITS } from '../limits.js';
import { MAX_URN_LENGTH } from '../urn.js';

/** A URN as text; whether it parses, and as what, is a rule of the body using it. */
export const urnText = z.string().max(MAX_URN_LENGTH);

/** An optional text field; null counts as absent, as DataHub's clients send it. */
export const optionalText = (max: number) => z.string().max(max).nullish();

export const typedValueShape = z
  .strictObject({
    string: z.string().max(LIMITS.richTextValueLength).optional(),
    double: z.union([z.number(), z.string().max(100)], { error: 'must be a number' }).optional(),
  })
  .refine((v) => (v.string === undefined) !== (v.double === undefined), {
    error: 'must have exactly one of "string" or "double", e.g. {"string": "pii"} or {"double": 30}',
  })
  .meta({
    id: 'TypedValue',
    description:
      'A typed value: `{"double": n}` for number properties, `{"string": s}` for string, rich_text, date (`YYYY-MM-DD`) and urn properties. The property definition decides the type; a numeric string is accepted for a number property. Responses write doubles with a decimal part (`30.0`).',
  });

export const auditStampShape = z
  .strictObject({
    time: z.number().describe('Milliseconds since the epoch.'),
    actor: urnText.describe('Who, e.g. `urn:li:corpuser:datahub`.'),
    impersonator: urnText.optional(),
    message: z.string().max(LIMITS.descriptionLength).optional(),
  })
  .meta({ id: 'AuditStamp', description: "DataHub's audit stamp: kept as given." });
