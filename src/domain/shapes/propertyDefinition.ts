/**
 * The `propertyDefinition` aspect's shape (docs/contract.md §2, DataHub's StructuredPropertyDefinition):
 * fields, types and bounds. What the values mean (type URNs, allowed values typed like
 * the property, the qualified name matching the URN) is checked by
 * domain/propertyDefinition.ts on the shaped value.
 */
import * as z from 'zod';
import { LIMITS } from '../limits.js';
import { auditStampShape, optionalText, typedValueShape } from './common.js';
import { describeInput } from './shape.js';

export const VERSION_PATTERN = /^[0-9]{14}$/;

const typeUrnText = z.string().max(200);

export const allowedValueShape = z.strictObject({
  value: typedValueShape,
  description: optionalText(LIMITS.descriptionLength),
});

/**
 * DataHub's DataHubSearchConfig: how DataHub indexes the property. Stored and returned
 * as given, never interpreted; unknown keys pass, so newer DataHub clients are not refused.
 */
const searchConfigurationShape = z
  .looseObject({
    fieldName: z.string().max(LIMITS.nameLength).optional(),
    fieldType: z.string().max(100).optional(),
    queryByDefault: z.boolean().optional(),
    enableAutocomplete: z.boolean().optional(),
    addToFilters: z.boolean().optional(),
    addHasValuesToFilters: z.boolean().optional(),
    filterNameOverride: z.string().max(LIMITS.nameLength).optional(),
    hasValuesFilterNameOverride: z.string().max(LIMITS.nameLength).optional(),
    boostScore: z.number().optional(),
    hasValuesFieldName: z.string().max(LIMITS.nameLength).optional(),
    numValuesFieldName: z.string().max(LIMITS.nameLength).optional(),
    weightsPerFieldValue: z.record(z.string().max(LIMITS.nameLength), z.number()).optional(),
    fieldNameAliases: z.array(z.string().max(LIMITS.nameLength)).max(100).optional(),
  })
  .describe("DataHub's search configuration for the property; stored and returned as given.");

export const propertyDefinitionShape = z
  .strictObject({
    qualifiedName: z.string().min(1).max(LIMITS.nameLength).describe('Equals the URN id; dots allowed, no spaces; never changes.'),
    displayName: optionalText(LIMITS.nameLength),
    valueType: typeUrnText.describe('`urn:li:dataType:svc.{string,rich_text,number,date,urn}` (also accepted: `datahub.<x>` and `urn:li:dataType:<x>`).'),
    typeQualifier: z
      .strictObject({ allowedTypes: z.array(typeUrnText).max(LIMITS.entityTypesPerDefinition).optional() })
      .nullish()
      .describe('For `urn` properties: the entity types a value may name.'),
    allowedValues: z.array(allowedValueShape).max(LIMITS.allowedValues).nullish().describe('When present, values must be one of these (typed like the property).'),
    cardinality: z.enum(['SINGLE', 'MULTIPLE']).nullish().describe('Default SINGLE.'),
    entityTypes: z
      .array(typeUrnText)
      .min(1)
      .max(LIMITS.entityTypesPerDefinition)
      .describe('`urn:li:entityType:svc.<entityName>`: the entity types that may carry values of this property.'),
    description: optionalText(LIMITS.descriptionLength),
    allowedPlatforms: z
      .array(typeUrnText)
      .max(LIMITS.entityTypesPerDefinition)
      .nullish()
      .describe('DataHub\'s allowedPlatforms: `urn:li:dataPlatform:<name>` of the platforms the property applies to; stored and returned as given.'),
    searchConfiguration: searchConfigurationShape.nullish(),
    immutable: z.boolean().nullish().describe('Values cannot change or be removed once set. Default false.'),
    version: z
      .string()
      .regex(VERSION_PATTERN, { error: (iss) => `${describeInput(iss.input)} does not match [0-9]{14} (yyyyMMddhhmmss, e.g. 20240614080000)` })
      .nullish()
      .describe('`yyyyMMddhhmmss`. A greater version allows a breaking change; values written under older versions disappear.'),
    created: auditStampShape.nullish(),
    lastModified: auditStampShape.nullish(),
    filterStatus: z.string().max(100).nullish().describe("DataHub's filter status of the property; stored and returned as given."),
  })
  .meta({ id: 'PropertyDefinition', description: 'The `propertyDefinition` aspect of a `structuredProperty` entity (docs/contract.md §2).' });

export type PropertyDefinitionShape = z.output<typeof propertyDefinitionShape>;
