/** The subgraph schema: schema.graphql (the source of truth) with the resolvers. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { gql } from 'graphql-tag';
import type { GraphQLSchema } from 'graphql';
import { resolvers } from './resolvers/index.js';

/** src/graphql or dist/graphql → the package root's schema.graphql. */
export const SCHEMA_PATH = fileURLToPath(new URL('../../schema.graphql', import.meta.url));

export function loadTypeDefs(): string {
  return readFileSync(SCHEMA_PATH, 'utf8');
}

export function buildSchema(): GraphQLSchema {
  return buildSubgraphSchema([{ typeDefs: gql(loadTypeDefs()), resolvers: resolvers as never }]);
}
