/**
 * The console's only way to the server: GraphQL over HTTP at the endpoint the page
 * names (its <meta name="propgraph-graphql-url">, set by the server; a federation
 * gateway on this origin works the same). The browser's session cookie authenticates
 * it (lib/session.ts): the console never holds a token.
 */
import type { TypedDocumentString } from '../generated/graphql';
import { session } from './session';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
    /** The service's own code of the refusal (extensions.reason), e.g. INCOMPATIBLE_CHANGE. */
    readonly reason: string | null = null,
    /** The refusal's facts beside its words (the error's extensions): a stale write's versions, writes since and changes. */
    readonly extensions: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

export function graphqlEndpoint(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="propgraph-graphql-url"]');
  return meta?.content || '/api/graphql';
}

interface GraphQLResponse<R> {
  data?: R | null;
  errors?: Array<{ message: string; extensions?: { code?: string; reason?: string } & Record<string, unknown> }>;
}

/** Runs an operation as whoever this browser is signed in as. */
export async function request<R, V>(document: TypedDocumentString<R, V>, variables: V): Promise<R> {
  let response: Response;
  const endpoint = graphqlEndpoint();
  // The server records the interface each write came through; a gateway on another origin is left plain (no CORS preflight for it).
  const client: Record<string, string> = endpoint.startsWith('/') ? { 'x-propgraph-client': 'console' } : {};
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...client },
      body: JSON.stringify({ query: document.toString(), variables }),
    });
  } catch {
    throw new ApiError('The server could not be reached. Check that it is running and try again.', 'NETWORK');
  }
  let body: GraphQLResponse<R> | undefined;
  try {
    body = (await response.json()) as GraphQLResponse<R>;
  } catch {
    body = undefined;
  }
  const first = body?.errors?.[0];
  if (response.status === 401) {
    const message = first?.message ?? 'Not signed in';
    session.signOut(message);
    throw new ApiError(message, 'UNAUTHENTICATED');
  }
  if (first) throw new ApiError(first.message, first.extensions?.code ?? null, first.extensions?.reason ?? null, first.extensions ?? {});
  if (!response.ok || !body?.data) throw new ApiError(`The server answered ${response.status} ${response.statusText}`, null);
  return body.data;
}

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
