/** The subgraph schema: schema.graphql (the source of truth) with the resolvers. */
import { buildSubgraphSchema } from '@apollo/subgraph';
import { gql } from 'graphql-tag';
import type { GraphQLSchema } from 'graphql';
import { resolvers } from './resolvers/index.js';
import { loadTypeDefs } from './typeDefs.js';

export { loadTypeDefs, SCHEMA_PATH } from './typeDefs.js';

export function buildSchema(): GraphQLSchema {
  return buildSubgraphSchema([{ typeDefs: gql(loadTypeDefs()), resolvers: resolvers as never }]);
}
