import { parseEntityTypeUrn, NAMESPACE } from '../../domain/typeUrns.js';
import type { EntityType, EntityTypeEntityResolvers, EntityTypeInfoResolvers } from '../generated/resolvers-types.js';
import { entityTypeOf } from './entityModel.js';

export const EntityTypeEntity: EntityTypeEntityResolvers = {
  type: entityTypeOf,
  info: (m) => ({ type: parseEntityTypeUrn(m.urn) }),
};

export const EntityTypeInfo: EntityTypeInfoResolvers = {
  type: (m) => m.type.graphql as EntityType,
  qualifiedName: (m) => `${NAMESPACE}.${m.type.name}`,
  displayName: (m) => m.type.name.charAt(0).toUpperCase() + m.type.name.slice(1),
};
