import { keyAspectOf, parseUrn } from '../../domain/urn.js';
import type { SchemaFieldEntityResolvers } from '../generated/resolvers-types.js';
import { structuredPropertiesOf, testResultsOf } from './assetFields.js';
import { asset } from './datahubEntities.js';
import { entityModel, entityTypeOf } from './entityModel.js';

export const SchemaFieldEntity: SchemaFieldEntityResolvers = {
  ...(asset(['deprecation', 'glossaryTerms', 'tags', 'relationships']) as Partial<SchemaFieldEntityResolvers>),
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
