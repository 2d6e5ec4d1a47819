/**
 * Every REST route's documentation, keyed `<METHOD> <OpenAPI path>` (paths as served
 * at the root; the same routes under `/gms` are the document's second server).
 */
import { COMPLIANCE_ROUTE_DOCS } from './complianceDocs.js';
import { entityRouteDocs } from './entityDocs.js';
import type { RouteDoc } from './routeDoc.js';
import { RESTLI_ROUTE_DOCS } from './restliDocs.js';
import { SYSTEM_ROUTE_DOCS } from './systemDocs.js';
import { HISTORY_ROUTE_DOCS } from './historyDocs.js';
import { POLICY_ROUTE_DOCS } from './policyDocs.js';

export const ROUTE_DOCS: ReadonlyMap<string, RouteDoc> = new Map(
  Object.entries({ ...entityRouteDocs('v3'), ...entityRouteDocs('v2'), ...SYSTEM_ROUTE_DOCS, ...HISTORY_ROUTE_DOCS, ...COMPLIANCE_ROUTE_DOCS, ...RESTLI_ROUTE_DOCS, ...POLICY_ROUTE_DOCS }),
);

/** `/openapi/v3/entity/:entityName` → `/openapi/v3/entity/{entityName}`. */
export function openapiPath(fastifyUrl: string): string {
  return fastifyUrl.replace(/:(\w+)/g, '{$1}');
}

export const routeDocKey = (method: string, path: string): string => `${method.toUpperCase()} ${path}`;
