import { valueType } from '../../domain/registry/valueTypes.js';
import type { DataTypeInfoResolvers } from '../generated/resolvers-types.js';

export const DataTypeInfo: DataTypeInfoResolvers = {
  type: (m) => valueType(m.type).std,
  qualifiedName: (m, _args, ctx) => `${ctx.urnNamespace}.${m.type}`,
  displayName: (m) => valueType(m.type).displayName,
  description: (m) => valueType(m.type).description,
};
