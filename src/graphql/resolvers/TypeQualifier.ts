import { entityTypeOf, entityTypeUrn } from '../../domain/typeUrns.js';
import type { TypeQualifierResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

export const TypeQualifier: TypeQualifierResolvers = {
  allowedTypes: (m, _args, ctx) => m.allowedTypes.map((t) => entityModel(entityTypeUrn(entityTypeOf(t, 'typeQualifier.allowedTypes'), ctx.urnNamespace))),
};
