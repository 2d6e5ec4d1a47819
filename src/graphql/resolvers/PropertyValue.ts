import { isDoubleValue } from '../../domain/typedValue.js';
import type { NumberValueResolvers, PropertyValueResolvers, StringValueResolvers } from '../generated/resolvers-types.js';

export const PropertyValue: PropertyValueResolvers = {
  __resolveType: (v) => (isDoubleValue(v) ? 'NumberValue' : 'StringValue'),
};

export const StringValue: StringValueResolvers = {
  stringValue: (v) => (isDoubleValue(v) ? String(v.double) : v.string),
};

export const NumberValue: NumberValueResolvers = {
  numberValue: (v) => (isDoubleValue(v) ? v.double : Number(v.string)),
};
