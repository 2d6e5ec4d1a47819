import { findEntityType } from '../../domain/registry/entityTypes.js';
import type { EntityType, ValueImpactResolvers } from '../generated/resolvers-types.js';

export const ValueImpact: ValueImpactResolvers = {
  byEntityType: (m) =>
    Object.entries(m.byEntityType).flatMap(([name, count]) => {
      const type = findEntityType(name);
      return type ? [{ entityType: type.graphql as EntityType, count }] : [];
    }),
};
