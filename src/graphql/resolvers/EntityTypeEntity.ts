import { parseEntityTypeUrn } from '../../domain/typeUrns.js';
import type { EntityTypeEntityResolvers } from '../generated/resolvers-types.js';
import { entityTypeOf } from './entityModel.js';

export const EntityTypeEntity: EntityTypeEntityResolvers = {
  type: entityTypeOf,
  info: (m, _args, ctx) => ({ type: parseEntityTypeUrn(m.urn, ctx.urnNamespace) }),
};
