/**
 * The public GraphQL schema stays backwards compatible with the last release (docs/style.md,
 * graphql-js's findBreakingChanges): schema.graphql is compared with
 * test/fixtures/schema.released.graphql, the schema as last released, and any change
 * that breaks an existing client fails `npm test`. Offline: @graphql-inspector/core
 * compares the two files, nothing is fetched.
 */
import { readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { parse, type GraphQLSchema } from 'graphql';

const CURRENT = 'schema.graphql';
const RELEASED = 'test/fixtures/schema.released.graphql';

/** The schema the subgraph serves from this SDL (federation's _service and _entities included). */
function servedSchema(sdl: string): GraphQLSchema {
  return buildSubgraphSchema([{ typeDefs: parse(sdl) }]);
}

/** One line per change that breaks a client of `released`. */
async function breakingChanges(released: string, current: string): Promise<string[]> {
  const changes = await diff(servedSchema(released), servedSchema(current));
  return changes.filter((c) => c.criticality.level === CriticalityLevel.Breaking).map((c) => `${c.path ?? ''}: ${c.message}`);
}

function releaseAdvice(breaking: readonly string[]): string {
  return (
    `${CURRENT} breaks clients of the released schema (${RELEASED}):\n` +
    breaking.map((line) => `  - ${line}`).join('\n') +
    `\nKeep the old fields and types (deprecate them with @deprecated) instead. If this is a ` +
    `release that breaks compatibility on purpose, say so in the release notes and make it the ` +
    `new baseline: cp ${CURRENT} ${RELEASED}`
  );
}

test('schema.graphql makes no breaking change to the released schema', async () => {
  const breaking = await breakingChanges(readFileSync(RELEASED, 'utf8'), readFileSync(CURRENT, 'utf8'));
  if (breaking.length > 0) throw new Error(releaseAdvice(breaking));
});

test('the check names a removed field and a field made nullable as breaking, and an added one as not', async () => {
  const released = 'type Query { dataset(urn: String!): Dataset }\ntype Dataset { urn: String! name: String! }';
  const current = 'type Query { dataset(urn: String!): Dataset }\ntype Dataset { urn: String description: String }';
  const breaking = await breakingChanges(released, current);
  expect(breaking).toEqual([expect.stringContaining("'name' was removed"), expect.stringMatching(/Dataset\.urn.*String!.*String/)]);
  expect(releaseAdvice(breaking)).toContain(`cp ${CURRENT} ${RELEASED}`);
});
