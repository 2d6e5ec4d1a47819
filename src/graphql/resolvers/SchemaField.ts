import { schemaFieldUrn } from '../../domain/urn.js';
import type { SchemaFieldResolvers } from '../generated/resolvers-types.js';
import { entityModel } from './entityModel.js';

export const SchemaField: SchemaFieldResolvers = {
  schemaFieldEntity: (field) => entityModel(schemaFieldUrn(field.datasetUrn, field.fieldPath)),
};
