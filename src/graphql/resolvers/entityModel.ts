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
const OBJECT_TYPES: Record<string, string> = {
  dataset: 'Dataset',
  schemaField: 'SchemaFieldEntity',
  structuredProperty: 'StructuredPropertyEntity',
  test: 'Test',
  dataType: 'DataTypeEntity',
  entityType: 'EntityTypeEntity',
  dataPlatform: 'DataPlatform',
  corpuser: 'CorpUser',
};

export function objectTypeOf(model: EntityModel): string {
  return OBJECT_TYPES[model.entityType.name] ?? 'GenericEntity';
}
