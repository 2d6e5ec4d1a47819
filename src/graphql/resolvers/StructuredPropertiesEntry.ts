import { valueType } from '../../domain/registry/valueTypes.js';
import { dataTypeOf } from '../../domain/typeUrns.js';
import { isDoubleValue } from '../../domain/typedValue.js';
import type { StructuredPropertiesEntryResolvers } from '../generated/resolvers-types.js';
import type { AttributionModel } from '../models.js';
import { entityModel } from './entityModel.js';

export const StructuredPropertiesEntry: StructuredPropertiesEntryResolvers = {
  structuredProperty: (m) => entityModel(m.propertyUrn),
  values: (m) => [...m.values],
  associatedUrn: (m) => m.associatedUrn,
  attribution: (m) => (m.attribution && typeof m.attribution === 'object' ? (m.attribution as AttributionModel) : null),
  // Only properties of a type whose values name entities (urn) have value entities.
  valueEntities: async (m, _args, ctx) => {
    const state = await ctx.loaders.property.load(m.propertyUrn);
    if (!state || !valueType(dataTypeOf(state.definition.valueType)).namesEntities) return null;
    return m.values.filter((v) => !isDoubleValue(v)).map((v) => entityModel((v as { string: string }).string));
  },
};
