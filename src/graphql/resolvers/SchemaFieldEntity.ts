import { keyAspectOf, parseUrn } from '../../domain/urn.js';
import type { SchemaFieldEntityResolvers } from '../generated/resolvers-types.js';
import { structuredPropertiesOf, testResultsOf } from './assetFields.js';
import { entityModel, entityTypeOf } from './entityModel.js';

export const SchemaFieldEntity: SchemaFieldEntityResolvers = {
  type: entityTypeOf,
  fieldPath: (model) => keyAspectOf(parseUrn(model.urn)).fieldPath!,
  parent: (model) => entityModel(keyAspectOf(parseUrn(model.urn)).parent!),
  structuredProperties: structuredPropertiesOf,
  testResults: testResultsOf,
};
