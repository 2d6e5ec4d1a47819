import { keyAspectOf, parseUrn } from '../../domain/urn.js';
import type { SchemaFieldEntityResolvers } from '../generated/resolvers-types.js';
import { structuredPropertiesOf, testResultsOf } from './assetFields.js';
import { entityModel, entityTypeOf } from './entityModel.js';

/** A schema field entity; the fields every asset answers alike (deprecation, tags, ...) are added in index.ts. */
export const SchemaFieldEntity: SchemaFieldEntityResolvers = {
  type: entityTypeOf,
  fieldPath: (model) => keyAspectOf(parseUrn(model.urn)).fieldPath!,
  parent: (model) => entityModel(keyAspectOf(parseUrn(model.urn)).parent!),
  structuredProperties: structuredPropertiesOf,
  testResults: testResultsOf,
  // Written on the field's own entity by DataHub's clients only through aspects propgraph does not model.
  documentation: () => null,
  businessAttributes: () => null,
  logicalParent: () => null,
  lineage: () => null,
};
