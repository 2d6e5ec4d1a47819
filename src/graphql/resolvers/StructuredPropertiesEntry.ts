import { parseDataTypeUrn } from '../../domain/typeUrns.js';
import { isDoubleValue } from '../../domain/typedValue.js';
import type { StructuredPropertiesEntryResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

export const StructuredPropertiesEntry: StructuredPropertiesEntryResolvers = {
  structuredProperty: (m) => entityModel(m.propertyUrn),
  values: (m) => [...m.values],
  associatedUrn: (m) => m.associatedUrn,
  // Only urn-typed properties name entities (docs/contract.md §8).
  valueEntities: async (m, _args, ctx) => {
    const state = await ctx.loaders.property.load(m.propertyUrn);
    if (!state || parseDataTypeUrn(state.definition.valueType) !== 'urn') return null;
    return m.values.filter((v) => !isDoubleValue(v)).map((v) => entityModel((v as { string: string }).string));
  },
};
