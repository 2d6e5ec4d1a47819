/** Building entity models and the `type` field every entity type shares. */
import { parseUrn } from '../../domain/urn.js';
import type { EntityType } from '../generated/resolvers-types.js';
import type { EntityModel } from '../models.js';

export function entityModel(urn: string): EntityModel {
  return { urn, entityType: parseUrn(urn).entityType };
}

export function entityTypeOf(model: EntityModel): EntityType {
  return model.entityType.graphql as EntityType;
}

/** GraphQL object type for an entity, by its entity type. */
export function objectTypeOf(model: EntityModel): string {
  return model.entityType.graphqlObject;
}
