// A graphql-codegen plugin (codegen.yml) that writes src/graphql/generated/subgraphSchema.ts:
// the schema Apollo's buildSubgraphSchema makes of schema.graphql, as SDL, the subgraph SDL
// it answers `_service` with, and the digest of the schema.graphql they came from, so that
// a server's start builds it without checking the federation rules again
// (src/graphql/schema.ts says why and how).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { printSchema } from 'graphql';
import { gql } from 'graphql-tag';

export function plugin() {
  const typeDefs = readFileSync('schema.graphql', 'utf8');
  const schema = buildSubgraphSchema([{ typeDefs: gql(typeDefs) }]);
  const serviceSdl = schema.getQueryType().getFields()._service.resolve().sdl;
  return [
    `/** The digest (SHA-256) of the schema.graphql SUBGRAPH_SDL and SUBGRAPH_SERVICE_SDL were made from. */`,
    `export const SUBGRAPH_SOURCE_DIGEST = '${createHash('sha256').update(typeDefs).digest('hex')}';`,
    '',
    `/** buildSubgraphSchema's schema of schema.graphql, as graphql-js prints it. */`,
    `export const SUBGRAPH_SDL = ${JSON.stringify(printSchema(schema))};`,
    '',
    `/** What buildSubgraphSchema's schema answers to \`_service { sdl }\`: the subgraph's SDL a gateway composes. */`,
    `export const SUBGRAPH_SERVICE_SDL = ${JSON.stringify(serviceSdl)};`,
    '',
  ].join('\n');
}
