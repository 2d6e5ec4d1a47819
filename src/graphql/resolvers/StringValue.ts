import { isDoubleValue } from '../../domain/typedValue.js';
import type { StringValueResolvers } from '../generated/resolvers-types.js';

export const StringValue: StringValueResolvers = {
  stringValue: (v) => (isDoubleValue(v) ? String(v.double) : v.string),
};
