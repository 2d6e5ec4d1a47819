/**
 * The subgraph schema: schema.graphql (the source of truth) with the resolvers.
 *
 * Apollo's `buildSubgraphSchema` checks the federation rules and the SDL on every call;
 * with the loading of federation's package that was a quarter of a server's CPU time to
 * start (0.45 of 1.8 s; docs/decisions.md), for a schema that changes only with a
 * release. `npm run codegen` builds it once with `buildSubgraphSchema` and keeps the
 * schema graphql-js builds, as SDL, with the digest of the schema.graphql it came from,
 * and the subgraph SDL it answers `_service` with (generated/subgraphSchema.ts).
 *
 * A start whose schema.graphql has that digest builds the schema from the kept SDL
 * without checking it again and attaches what `buildSubgraphSchema` attaches: `_service`
 * (the kept subgraph SDL), `_entities` (Apollo's own resolver) and the resolvers. Any
 * other schema.graphql (edited, codegen not run yet) is built by `buildSubgraphSchema`,
 * and `npm test`'s codegen check fails until the kept schema is made again.
 * test/unit/subgraphSchema.test.ts holds the two paths to the same schema.
 */
import { createHash } from 'node:crypto';
import { buildASTSchema, parse, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
// Not in @apollo/subgraph's index, but what its buildSubgraphSchema calls (2.x); the
// unit test named above fails if they stop doing the same.
import { addResolversToSchema } from '@apollo/subgraph/dist/schema-helper/buildSchemaFromSDL.js';
import { entitiesResolver } from '@apollo/subgraph/dist/types.js';
import { SUBGRAPH_SDL, SUBGRAPH_SERVICE_SDL, SUBGRAPH_SOURCE_DIGEST } from './generated/subgraphSchema.js';
import type { Logger } from '../platform/logger.js';
import { resolvers } from './resolvers/index.js';
import { loadTypeDefs, SCHEMA_PATH } from './typeDefs.js';

export { loadTypeDefs, SCHEMA_PATH } from './typeDefs.js';

/** The digest the kept schema is matched on. */
export const typeDefsDigest = (typeDefs: string): string => createHash('sha256').update(typeDefs).digest('hex');

/** Whether codegen kept the schema of these type definitions (else a start checks them all). */
export const keptSchemaIsOf = (typeDefs: string): boolean => typeDefsDigest(typeDefs) === SUBGRAPH_SOURCE_DIGEST;

/**
 * The subgraph schema of schema.graphql (or of `typeDefs`) with the service's resolvers;
 * `log` hears when it is not the one codegen kept.
 */
export async function buildSchema({ typeDefs = loadTypeDefs(), log }: { typeDefs?: string; log?: Logger } = {}): Promise<GraphQLSchema> {
  if (!keptSchemaIsOf(typeDefs)) {
    log?.warn({ schema: SCHEMA_PATH }, 'schema.graphql is not the one codegen kept the subgraph schema of: it is built with every check at each start; run npm run codegen');
    return validatedSchema(typeDefs);
  }
  const schema = buildASTSchema(parse(SUBGRAPH_SDL), { assumeValidSDL: true });
  addResolversToSchema(schema, {
    Query: {
      _service: () => ({ sdl: SUBGRAPH_SERVICE_SDL }),
      _entities: (_source: unknown, { representations }: { representations: unknown[] }, context: unknown, info: GraphQLResolveInfo) =>
        entitiesResolver({ representations, context, info }),
    },
    _Entity: { __resolveType: (parent: { __typename?: string }) => parent.__typename },
  });
  addResolversToSchema(schema, resolvers as never);
  return schema;
}

/** `buildSubgraphSchema`'s schema, every rule checked. */
export async function validatedSchema(typeDefs: string): Promise<GraphQLSchema> {
  const [{ buildSubgraphSchema }, { gql }] = await Promise.all([import('@apollo/subgraph'), import('graphql-tag')]);
  return buildSubgraphSchema([{ typeDefs: gql(typeDefs), resolvers: resolvers as never }]);
}
