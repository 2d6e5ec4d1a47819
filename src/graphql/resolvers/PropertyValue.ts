import { isDoubleValue } from '../../domain/typedValue.js';
import type { PropertyValueResolvers } from '../generated/resolvers-types.js';

export const PropertyValue: PropertyValueResolvers = {
  __resolveType: (v) => (isDoubleValue(v) ? 'NumberValue' : 'StringValue'),
};
