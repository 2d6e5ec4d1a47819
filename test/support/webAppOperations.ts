/**
 * DataHub's web-app GraphQL operations: the documents as its app posts them
 * (test/fixtures/datahub-webapp/operations.json, extracted from its source by
 * test/support/extractWebAppOperations.mjs) and the requests its pages send
 * (test/fixtures/datahub-webapp/pages.json). Checks them against schema.graphql with
 * graphql-js and sends them as Apollo Client does.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { gql } from 'graphql-tag';
import { getVariableValues, parse, validate, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Check } from './datahubReplay.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE_DIR = path.resolve(here, '../fixtures/datahub-webapp');
const SCHEMA_FILE = path.resolve(here, '../../schema.graphql');

export interface WebAppOperation {
  readonly name: string;
  readonly type: 'query' | 'mutation';
  /** Where the app defines it, and the fragments it spreads (each with its file). */
  readonly file: string;
  readonly fragments: ReadonlyArray<{ readonly name: string; readonly file: string }>;
  /** The document as Apollo Client sends it: __typename added, fragments appended. */
  readonly document: string;
}

export interface WebAppOperations {
  readonly source: { readonly repository: string; readonly commit: string };
  readonly operations: readonly WebAppOperation[];
}

export interface WebAppRequest {
  readonly page: 'shell' | 'alsoSent' | 'structuredProperties' | 'search' | 'datasetProfile' | 'views';
  readonly id: string;
  readonly operation: string;
  readonly uiSource: string;
  readonly variables: Record<string, unknown>;
  readonly expect: { readonly status: readonly number[]; readonly checks: readonly Check[] };
  /** A value of the answer later requests use (`${name}`). */
  readonly capture?: { readonly name: string; readonly path: string };
}

export interface Proposal {
  readonly entityType: string;
  readonly entityUrn: string;
  readonly changeType: string;
  readonly aspectName: string;
  readonly aspect: unknown;
}

export interface WebAppPages {
  readonly setup: { readonly proposals: readonly Proposal[]; readonly dataset: string; readonly property: string };
  readonly sequence: readonly WebAppRequest[];
}

export function loadWebAppOperations(): WebAppOperations {
  return JSON.parse(readFileSync(path.join(FIXTURE_DIR, 'operations.json'), 'utf8')) as WebAppOperations;
}

export function loadWebAppPages(): WebAppPages {
  return JSON.parse(readFileSync(path.join(FIXTURE_DIR, 'pages.json'), 'utf8')) as WebAppPages;
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

/** A value with every `${name}` in its strings replaced. */
export function withValues<T>(value: T, values: Readonly<Record<string, string>>): T {
  return JSON.parse(JSON.stringify(value).replace(/\$\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole)) as T;
}

/** The body Apollo Client's HttpLink posts. */
export function apolloBody(operation: WebAppOperation, variables: Record<string, unknown>): string {
  return JSON.stringify({ operationName: operation.name, variables, query: operation.document });
}
