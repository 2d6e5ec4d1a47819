import { entityTypeUrn, parseEntityTypeUrn } from '../../domain/typeUrns.js';
import type { TypeQualifierResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

export const TypeQualifier: TypeQualifierResolvers = {
  allowedTypes: (m) => m.allowedTypes.map((t) => entityModel(entityTypeUrn(parseEntityTypeUrn(t)))),
};
