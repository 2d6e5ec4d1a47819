/**
 * The shape of a JSON patch body (RFC 6902 with DataHub's `arrayPrimaryKeys`). As the
 * RFC says, members an operation does not use are ignored.
 */
import * as z from 'zod';
import { LIMITS } from '../limits.js';

export const MAX_PATCH_OPERATIONS = 1000;

/** Key fields of one keyed array. */
const MAX_KEY_FIELDS = 4;

const patchOperationShape = z
  .object({
    op: z.enum(['add', 'remove', 'replace', 'test']),
    path: z
      .string()
      .max(LIMITS.descriptionLength)
      .refine((p) => p === '' || p.startsWith('/'), { error: 'must be a JSON pointer such as /properties/<urn>' }),
    value: z.unknown().optional().describe('Required for add, replace and test.'),
  })
  .superRefine((o, ctx) => {
    if (o.op !== 'remove' && !Object.hasOwn(o, 'value')) ctx.addIssue({ code: 'custom', path: ['value'], message: `is required for ${o.op}` });
  });

export const patchDocumentShape = z
  .strictObject({
    patch: z.array(patchOperationShape, {
      error: (iss) => (iss.input === undefined ? 'is required: a list of operations such as [{"op": "remove", "path": "/properties/<urn>"}]' : undefined),
    }).max(MAX_PATCH_OPERATIONS),
    arrayPrimaryKeys: z
      .record(
        z.string().max(LIMITS.nameLength),
        z.array(z.string().min(1).max(LIMITS.nameLength)).max(MAX_KEY_FIELDS, { error: `must name at most ${MAX_KEY_FIELDS} key fields, e.g. ["propertyUrn", "attribution\u241Fsource"]` }),
      )
      .nullish()
      .describe(
        'Per array name, the fields that identify its elements, in path order, e.g. `{"properties": ["propertyUrn", "attribution\u241Fsource"]}` (a nested field with U+241F between its parts; none: an array of strings, identified by themselves).',
      ),
    forceGenericPatch: z.boolean().optional(),
  })
  .meta({
    id: 'JsonPatch',
    description:
      'A JSON patch (RFC 6902 operations). Keyed arrays are addressed by their keys, one path segment per key field: `/properties/<property urn>` (the URN not escaped) addresses a structured property\'s entry, `/properties/<property urn>/<attribution source>` the same as DataHub\'s newer clients write it: `add` inserts or replaces the entry, `remove` deletes it, others stay. An aspect\'s own keyed arrays need no `arrayPrimaryKeys` (structuredProperties.properties, a definition\'s allowedValues, entityTypes and allowedPlatforms); `arrayPrimaryKeys` names others, or overrides. A bare list of operations is accepted too.',
  });
