/**
 * The subgraph schema a server starts with (src/graphql/schema.ts): built from the SDL
 * codegen kept, it is the schema Apollo's buildSubgraphSchema builds of schema.graphql,
 * with the same resolvers on every field and type and the same federation answers; an
 * edited schema.graphql is built by buildSubgraphSchema, every rule checked.
 */
import { execute, isEnumType, isInterfaceType, isObjectType, isScalarType, isUnionType, parse, printSchema, type GraphQLNamedType, type GraphQLSchema } from 'graphql';
import { SUBGRAPH_SOURCE_DIGEST } from '../../src/graphql/generated/subgraphSchema.js';
import { buildSchema, keptSchemaIsOf, loadTypeDefs, typeDefsDigest, validatedSchema } from '../../src/graphql/schema.js';
import { nonEmpty } from '../support/nonEmpty.js';

/** What a type carries beyond its SDL, by where it sits: the resolvers buildSubgraphSchema attaches. */
function attachments(schema: GraphQLSchema): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const type of Object.values(schema.getTypeMap()) as GraphQLNamedType[]) {
    if (type.name.startsWith('__')) continue;
    const resolveReference = (type.extensions as { apollo?: { subgraph?: { resolveReference?: unknown } } }).apollo?.subgraph?.resolveReference;
    if (resolveReference) out.set(`${type.name}.__resolveReference`, resolveReference);
    if (isObjectType(type) || isInterfaceType(type)) {
      if (isObjectType(type) && type.isTypeOf) out.set(`${type.name}.__isTypeOf`, type.isTypeOf);
      if (isInterfaceType(type) && type.resolveType) out.set(`${type.name}.__resolveType`, type.resolveType);
      for (const field of Object.values(type.getFields())) {
        if (field.resolve) out.set(`${type.name}.${field.name}`, field.resolve);
        if (field.subscribe) out.set(`${type.name}.${field.name} (subscribe)`, field.subscribe);
      }
    } else if (isUnionType(type) && type.resolveType) out.set(`${type.name}.__resolveType`, type.resolveType);
    else if (isScalarType(type)) {
      out.set(`${type.name}.serialize`, type.serialize);
      out.set(`${type.name}.parseValue`, type.parseValue);
      // graphql-js gives each scalar without one a parseLiteral of its own (a closure over its parseValue): the same code.
      out.set(`${type.name}.parseLiteral`, String(type.parseLiteral));
    }
    else if (isEnumType(type)) for (const v of type.getValues()) out.set(`${type.name}.${v.name}`, v.value);
  }
  return out;
}

/** The federation's own resolvers are closures of each build: compared by their answers below. */
const FEDERATION_OWN = new Set(['Query._service', 'Query._entities', '_Entity.__resolveType']);

describe('the subgraph schema a server starts with', () => {
  let kept: GraphQLSchema;
  let checked: GraphQLSchema;

  beforeAll(async () => {
    [kept, checked] = await Promise.all([buildSchema(), validatedSchema(loadTypeDefs())]);
  });

  test('codegen kept it for this schema.graphql (else run npm run codegen)', () => {
    expect(SUBGRAPH_SOURCE_DIGEST).toBe(typeDefsDigest(loadTypeDefs()));
  });

  test('is the schema buildSubgraphSchema builds: the same SDL', () => {
    expect(printSchema(kept)).toBe(printSchema(checked));
  });

  test('with the same resolvers on every field and type', () => {
    const want = attachments(checked);
    const got = attachments(kept);
    expect(nonEmpty(want.keys(), 'the resolvers buildSubgraphSchema attached').length).toBeGreaterThan(500);
    const differ = [...new Set([...want.keys(), ...got.keys()])].filter((k) => !FEDERATION_OWN.has(k) && want.get(k) !== got.get(k));
    expect(differ).toEqual([]);
    expect([...FEDERATION_OWN].map((k) => [k, typeof got.get(k)])).toEqual([...FEDERATION_OWN].map((k) => [k, 'function']));
  });

  test('answers _service with the SDL buildSubgraphSchema answers, its @key directives included', async () => {
    const ask = (schema: GraphQLSchema) => execute({ schema, document: parse('{ _service { sdl } }') }) as Promise<{ data?: { _service: { sdl: string } } }>;
    const [fromKept, fromChecked] = await Promise.all([ask(kept), ask(checked)]);
    expect(fromChecked.data?._service.sdl).toContain('@key(');
    expect(fromKept).toEqual(fromChecked);
  });

  test('answers _entities with Apollo resolver, as buildSubgraphSchema does', async () => {
    const document = parse('query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }');
    const ask = (schema: GraphQLSchema) => Promise.resolve(execute({ schema, document, variableValues: { r: [{ __typename: 'NoSuchType', urn: 'urn:li:dataset:x' }] }, contextValue: {} }));
    const [fromKept, fromChecked] = await Promise.all([ask(kept), ask(checked)]);
    expect(fromChecked.errors?.[0]?.message).toMatch(/NoSuchType/);
    expect(JSON.stringify(fromKept)).toBe(JSON.stringify(fromChecked));
  });

  test('an edited schema.graphql is built by buildSubgraphSchema, every rule checked', async () => {
    expect([keptSchemaIsOf(loadTypeDefs()), keptSchemaIsOf(`${loadTypeDefs()}\n# edited\n`)]).toEqual([true, false]);
    const edited = await buildSchema({ typeDefs: `${loadTypeDefs()}\ntype EditedAfterCodegen { x: Int }\n` });
    expect(edited.getType('EditedAfterCodegen')).toBeDefined();
    await expect(buildSchema({ typeDefs: `${loadTypeDefs()}\ntype BrokenEdit { x: NoSuchType }\n` })).rejects.toThrow(/NoSuchType/);
  });
});
