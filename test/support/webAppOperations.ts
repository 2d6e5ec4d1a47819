/**
 * DataHub's web-app GraphQL operations (test/fixtures/datahub-webapp/operations.json):
 * checks their documents and the UI's variables against schema.graphql with graphql-js,
 * and sends them as Apollo Client does.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { gql } from 'graphql-tag';
import {
  getVariableValues,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  parse,
  validate,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Check } from './datahubReplay.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WEBAPP_FIXTURE = path.resolve(here, '../fixtures/datahub-webapp/operations.json');
const SCHEMA_FILE = path.resolve(here, '../../schema.graphql');

export interface WebAppOperation {
  readonly name: string;
  readonly type: 'query' | 'mutation';
  /** The document as Apollo Client sends it: __typename added, fragments appended. */
  readonly document: string;
}

export interface WebAppRequest {
  readonly id: string;
  readonly operation: string;
  readonly variables: Record<string, unknown>;
  readonly expect: { readonly status: readonly number[]; readonly checks: readonly Check[] };
}

export interface SchemaUses {
  readonly types: readonly string[];
  readonly fields: readonly string[];
  readonly arguments: readonly string[];
  readonly inputFields: readonly string[];
  readonly enumValues: readonly string[];
}

export interface WebAppFixture {
  readonly operations: readonly WebAppOperation[];
  readonly sequence: readonly WebAppRequest[];
  readonly setup: { readonly dataset: string };
  readonly schemaUses: SchemaUses;
  readonly issueListedFields: ReadonlyArray<{ field: string }>;
}

export function loadWebAppFixture(): WebAppFixture {
  return JSON.parse(readFileSync(WEBAPP_FIXTURE, 'utf8')) as WebAppFixture;
}

/** schema.graphql as the server builds it (federation directives understood), without resolvers. */
export function subgraphSchema(): GraphQLSchema {
  return buildSubgraphSchema([{ typeDefs: gql(readFileSync(SCHEMA_FILE, 'utf8')) }]);
}

/** graphql-js's validation errors for the document: each missing field, argument or type named. */
export function documentProblems(schema: GraphQLSchema, document: string): string[] {
  return validate(schema, parse(document)).map((e) => e.message);
}

/** What graphql-js says of the UI's variables for the operation (unknown input fields, bad values). */
export function variableProblems(schema: GraphQLSchema, document: string, variables: Record<string, unknown>): string[] {
  const op = parse(document).definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  if (!op) return ['the document holds no operation'];
  const result = getVariableValues(schema, op.variableDefinitions ?? [], variables);
  return 'errors' in result && result.errors ? result.errors.map((e) => e.message) : [];
}

/** The entries of `uses` that schema.graphql lacks, as "Type.field", "Type.field(arg)", and so on. */
export function missingUses(schema: GraphQLSchema, uses: SchemaUses): string[] {
  const missing: string[] = [];
  const fieldsOf = (typeName: string): Record<string, { args?: ReadonlyArray<{ name: string }> }> | undefined => {
    const t = schema.getType(typeName);
    if (t && (isObjectType(t) || isInterfaceType(t))) return t.getFields();
    return t && isInputObjectType(t) ? Object.fromEntries(Object.keys(t.getFields()).map((k) => [k, {}])) : undefined;
  };
  for (const t of uses.types) if (!schema.getType(t)) missing.push(`type ${t}`);
  for (const f of [...uses.fields, ...uses.inputFields]) {
    const [type, field] = f.split('.') as [string, string];
    if (schema.getType(type) && !fieldsOf(type)?.[field]) missing.push(`field ${f}`);
  }
  for (const a of uses.arguments) {
    const m = /^([^.]+)\.([^(]+)\(([^)]+)\)$/.exec(a);
    if (!m) continue;
    const field = fieldsOf(m[1]!)?.[m[2]!];
    if (field && !field.args?.some((x) => x.name === m[3])) missing.push(`argument ${a}`);
  }
  for (const v of uses.enumValues) {
    const [type, value] = v.split('.') as [string, string];
    const t = schema.getType(type);
    if (t && isEnumType(t) && !t.getValue(value)) missing.push(`enum value ${v}`);
  }
  return missing;
}

/** The issue's fields that no stored web-app document showed the selection of: present or not. */
export function missingFields(schema: GraphQLSchema, fields: readonly string[]): string[] {
  return fields.filter((f) => {
    const [type, field] = f.split('.') as [string, string];
    const t = schema.getType(type);
    return !(t && (isObjectType(t) || isInterfaceType(t)) && t.getFields()[field]);
  });
}

/** The body Apollo Client's HttpLink posts. */
export function apolloBody(operation: WebAppOperation, variables: Record<string, unknown>): string {
  return JSON.stringify({ operationName: operation.name, variables, query: operation.document });
}
