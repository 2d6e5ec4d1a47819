/** Sends a GraphQL operation over HTTP the way a client would. */
import { http, type HttpResponse } from './http.js';

export interface GraphQLResult<T = any> {
  readonly status: number;
  readonly data: T;
  readonly errors: Array<{ message: string; extensions?: { code?: string; field?: string } }> | undefined;
  readonly response: HttpResponse;
}

export async function graphql<T = any>(
  baseUrl: string,
  query: string,
  variables?: Record<string, unknown>,
  path = '/api/graphql',
  headers: Record<string, string> = {},
  options: { readYourWrites?: boolean } = {},
): Promise<GraphQLResult<T>> {
  const response = await http(baseUrl, 'POST', path, { json: { query, ...(variables ? { variables } : {}) }, headers, ...options });
  return { status: response.status, data: response.body?.data, errors: response.body?.errors, response };
}
