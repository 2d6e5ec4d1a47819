import { isDoubleValue } from '../../domain/typedValue.js';
import type { NumberValueResolvers } from '../generated/resolvers-types.js';

export const NumberValue: NumberValueResolvers = {
  numberValue: (v) => (isDoubleValue(v) ? v.double : Number(v.string)),
};
