/** The body of `POST /openapi/v3/values/bulk` (docs/contract.md §13). */
import * as z from 'zod';
import { BULK_OPERATIONS } from '../../domain/bulkEdit.js';
import { LIMITS } from '../../domain/limits.js';
import { typedValueShape, urnText } from '../../domain/shapes/common.js';

export const bulkEditShape = z
  .strictObject({
    query: z.string().max(10_000).nullish().describe('A search in the query syntax of docs/search.md (`platform:hive AND origin:PROD`, `*` for all) selecting the entities; or give `urns`.'),
    types: z.array(z.string().max(100)).max(50).nullish().describe('Entity types the query searches (`dataset`, `schemaField`, ...); absent: every searchable type the property applies to.'),
    urns: z.array(urnText).max(LIMITS.bulkEditEntities).nullish().describe('The entities, named, instead of a query.'),
    property: z.string().max(1000).describe('The structured property: its urn or qualified name.'),
    operation: z.string().max(20).describe('`set` (exactly these values), `add` (these values too) or `remove` (these values, or with none the property).').meta({ enum: [...BULK_OPERATIONS] }),
    values: z.array(z.union([typedValueShape, z.string().max(LIMITS.richTextValueLength), z.number()])).max(LIMITS.valuesPerProperty).nullish().describe('Typed values, or plain strings and numbers; the definition decides the type.'),
    dryRun: z.boolean().nullish().describe('Decide every entity\'s change and write nothing; the answer lists the changes value by value.'),
  })
  .meta({ id: 'BulkEdit', description: 'One property\'s values to set, add or remove on every entity a search selects.' });
