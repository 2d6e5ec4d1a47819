import type { StructuredPropertiesResolvers } from '../generated/resolvers-types.js';

export const StructuredProperties: StructuredPropertiesResolvers = {
  properties: (m) => m.properties.map((p) => ({ associatedUrn: m.associatedUrn, propertyUrn: p.propertyUrn, values: p.values, attribution: p.attribution })),
};
