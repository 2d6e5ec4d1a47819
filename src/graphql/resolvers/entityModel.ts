/** Building entity models and the `type` field every entity type shares. */
import { findEntityType } from '../../domain/registry/entityTypes.js';
import { parseUrn } from '../../domain/urn.js';
import type { EntityType } from '../generated/resolvers-types.js';
import type { EntityModel } from '../models.js';

export function entityModel(urn: string): EntityModel {
  return { urn, entityType: parseUrn(urn).entityType };
}

/**
 * A search hit's model. The index a hit came from names its entity type, and only
 * URNs parsed at their write are indexed: parsing each again cost ten lists of 1,000
 * hits 10,000 URN parses.
 */
export function hitModel(hit: { readonly urn: string; readonly entityType: string }): EntityModel {
  const entityType = findEntityType(hit.entityType);
  return entityType?.name === hit.entityType ? { urn: hit.urn, entityType } : entityModel(hit.urn);
}

export function entityTypeOf(model: EntityModel): EntityType {
  return model.entityType.graphql as EntityType;
}

/** GraphQL object type for an entity, by its entity type. */
export function objectTypeOf(model: EntityModel): string {
  return model.entityType.graphqlObject;
}
