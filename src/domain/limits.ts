/**
 * Bounds on what one request may store (docs/contract.md §10, issues #5 and #14). Errors name the
 * limit. The batch and aspect sizes also bound what one request costs the server's one
 * event loop (parsing, validating, serialising), and so how long it can delay others.
 */
export const LIMITS = {
  valuesPerProperty: 1000,
  stringValueLength: 10_000,
  richTextValueLength: 100_000,
  nameLength: 500,
  descriptionLength: 10_000,
  allowedValues: 1000,
  entityTypesPerDefinition: 100,
  propertiesPerEntity: 1000,
  batchEntities: 1000,
  /**
   * Characters of one aspect's JSON: 512 KiB, a schema of about 2,000 to 3,000 fields.
   * Eight clients reading an aspect of this size at once keep /health responsive on a
   * loaded 2-core machine; at twice the size they did not (BENCHMARKS.md, "Figures that
   * explained code choices").
   */
  aspectJsonLength: 512 * 1024,
} as const;
