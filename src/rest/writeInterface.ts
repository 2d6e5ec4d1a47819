/**
 * The interface a request came through (services/caller.ts WriteInterface), recorded
 * with every aspect version it writes. The path decides (REST v2, v3, GraphQL, and
 * DataHub's Rest.li routes for the rest); propgraph's own clients name themselves with
 * `X-Propgraph-Client: cli` or `console`. The header is a label, not a credential: the
 * actor is always the token's.
 */
import type { WriteInterface } from '../services/caller.js';

export const CLIENT_HEADER = 'x-propgraph-client';

const CLIENTS: ReadonlySet<string> = new Set(['cli', 'console']);

export function interfaceOf(path: string, client: string | string[] | undefined, graphqlPaths: readonly string[]): WriteInterface {
  const named = typeof client === 'string' ? client.trim().toLowerCase() : undefined;
  if (named !== undefined && CLIENTS.has(named)) return named as WriteInterface;
  if (/^(\/gms)?\/openapi\/v2(\/|$)/.test(path)) return 'rest-v2';
  if (/^(\/gms)?\/openapi\/v\d+(\/|$)/.test(path)) return 'rest-v3';
  if (graphqlPaths.includes(path)) return 'graphql';
  return 'restli';
}
