import type { EntityType, EntityTypeInfoResolvers } from '../generated/resolvers-types.js';

export const EntityTypeInfo: EntityTypeInfoResolvers = {
  type: (m) => m.type.graphql as EntityType,
  qualifiedName: (m, _args, ctx) => `${ctx.urnNamespace}.${m.type.name}`,
  displayName: (m) => m.type.name.charAt(0).toUpperCase() + m.type.name.slice(1),
};
