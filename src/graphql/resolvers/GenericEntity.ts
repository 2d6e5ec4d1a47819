import type { GenericEntityResolvers } from '../generated/resolvers-types.js';
import { structuredPropertiesOf, testResultsOf } from './assetFields.js';
import { entityTypeOf } from './entityModel.js';

export const GenericEntity: GenericEntityResolvers = {
  type: entityTypeOf,
  structuredProperties: structuredPropertiesOf,
  testResults: testResultsOf,
};
