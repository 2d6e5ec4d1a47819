/**
 * The `structuredProperties` aspect's shape (docs/contract.md §3). Whether each value fits its
 * property is decided against the definition by domain/structuredProperties.ts.
 */
import * as z from 'zod';
import { LIMITS } from '../limits.js';
import { auditStampShape, typedValueShape, urnText } from './common.js';

/** DataHub's MetadataAttribution: who or what set the values; kept as given. */
const attributionShape = z.strictObject({
  time: z.number(),
  actor: urnText,
  source: urnText.optional(),
  sourceDetail: z.record(z.string().max(LIMITS.nameLength), z.string().max(LIMITS.descriptionLength)).optional(),
});

export const propertyValueAssignmentShape = z.strictObject({
  propertyUrn: urnText.describe('`urn:li:structuredProperty:<qualified name>`'),
  values: z.array(typedValueShape).max(LIMITS.valuesPerProperty).describe('Typed like the property; at least one.'),
  created: auditStampShape.nullish(),
  lastModified: auditStampShape.nullish(),
  attribution: attributionShape.nullish(),
});

export const structuredPropertiesShape = z
  .strictObject({
    properties: z
      .array(propertyValueAssignmentShape, {
        error: (iss) => (iss.input === undefined ? 'is required: a list of {"propertyUrn": <urn>, "values": [...]}' : undefined),
      })
      .max(LIMITS.propertiesPerEntity),
  })
  .meta({
    id: 'StructuredProperties',
    description: 'The `structuredProperties` aspect of an entity (docs/contract.md §3). POST replaces the whole aspect; PATCH with `arrayPrimaryKeys` addresses one entry by property URN.',
  });
