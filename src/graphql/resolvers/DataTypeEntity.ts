import { parseDataTypeUrn } from '../../domain/typeUrns.js';
import type { DataTypeEntityResolvers } from '../generated/resolvers-types.js';
import { entityTypeOf } from './entityModel.js';

export const DataTypeEntity: DataTypeEntityResolvers = {
  type: entityTypeOf,
  info: (m, _args, ctx) => ({ type: parseDataTypeUrn(m.urn, ctx.urnNamespace) }),
};
