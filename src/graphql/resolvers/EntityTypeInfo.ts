import { urnNamespace } from '../../domain/typeUrns.js';
import type { EntityType, EntityTypeInfoResolvers } from '../generated/resolvers-types.js';

export const EntityTypeInfo: EntityTypeInfoResolvers = {
  type: (m) => m.type.graphql as EntityType,
  qualifiedName: (m) => `${urnNamespace()}.${m.type.name}`,
  displayName: (m) => m.type.name.charAt(0).toUpperCase() + m.type.name.slice(1),
};
