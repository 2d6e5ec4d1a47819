import type { EntityResolvers } from '../generated/resolvers-types.js';
import { objectTypeOf } from './entityModel.js';

export const Entity: EntityResolvers = {
  __resolveType: (model) => objectTypeOf(model) as ReturnType<NonNullable<EntityResolvers['__resolveType']>> & string,
};
