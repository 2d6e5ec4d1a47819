// A graphql-codegen plugin (codegen.yml) that writes src/graphql/generated/subgraphSchema.ts:
// the schema Apollo's buildSubgraphSchema makes of schema.graphql, as SDL, with the
// digest of the schema.graphql it came from, so that a server's start builds it without
// checking the federation rules again (src/graphql/schema.ts says why and how).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { printSchema } from 'graphql';
import { gql } from 'graphql-tag';

export function plugin() {
  const typeDefs = readFileSync('schema.graphql', 'utf8');
  const sdl = printSchema(buildSubgraphSchema([{ typeDefs: gql(typeDefs) }]));
  return [
    `/** The digest (SHA-256) of the schema.graphql SUBGRAPH_SDL was made from. */`,
    `export const SUBGRAPH_SOURCE_DIGEST = '${createHash('sha256').update(typeDefs).digest('hex')}';`,
    '',
    `/** buildSubgraphSchema's schema of schema.graphql, as graphql-js prints it. */`,
    `export const SUBGRAPH_SDL = ${JSON.stringify(sdl)};`,
    '',
  ].join('\n');
}
