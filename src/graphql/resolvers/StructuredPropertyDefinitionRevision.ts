import type { StructuredPropertyDefinitionRevisionResolvers } from '../generated/resolvers-types.js';

export const StructuredPropertyDefinitionRevision: StructuredPropertyDefinitionRevisionResolvers = {
  definition: (revision) => revision.definition,
  written: (revision) => revision.written,
};
