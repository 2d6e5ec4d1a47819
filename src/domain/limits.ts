/** Bounds on what one request may store (SPEC 10, issue #5). Errors name the limit. */
export const LIMITS = {
  valuesPerProperty: 1000,
  stringValueLength: 10_000,
  richTextValueLength: 100_000,
  nameLength: 500,
  descriptionLength: 10_000,
  allowedValues: 1000,
  entityTypesPerDefinition: 100,
  propertiesPerEntity: 1000,
  batchEntities: 10_000,
} as const;
