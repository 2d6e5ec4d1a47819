/**
 * The shape of a JSON patch body (RFC 6902 with DataHub's `arrayPrimaryKeys`). As the
 * RFC says, members an operation does not use are ignored.
 */
import * as z from 'zod';
import { LIMITS } from '../limits.js';

export const MAX_PATCH_OPERATIONS = 1000;

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
      .record(z.string().max(LIMITS.nameLength), z.array(z.string().max(LIMITS.nameLength)).length(1, { error: 'must name exactly one key field, e.g. ["propertyUrn"]' }))
      .nullish()
      .describe('Per array name, the field that identifies its elements, e.g. `{"properties": ["propertyUrn"]}`.'),
    forceGenericPatch: z.boolean().optional(),
  })
  .meta({
    id: 'JsonPatch',
    description:
      'A JSON patch (RFC 6902 operations). With `arrayPrimaryKeys` `{"properties": ["propertyUrn"]}`, `/properties/<property urn>` (the URN not escaped) addresses one entry: `add` inserts or replaces its values, `remove` deletes it, others stay. A bare list of operations is accepted too.',
  });
