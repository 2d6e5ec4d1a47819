/**
 * The shape of one route's documentation, and builders for the parts most routes
 * share (the standard error answers of docs/contract.md §4). These are documentation only: no
 * route is validated or serialised with them (see rest/openapi.ts).
 */

/** A JSON Schema fragment as OpenAPI 3.0 reads it. */
export type JsonSchema = Record<string, unknown>;

export interface Example {
  readonly summary: string;
  readonly value: unknown;
  readonly description?: string;
}

export type Examples = Readonly<Record<string, Example>>;

export interface ParamDoc {
  readonly description: string;
  readonly schema: JsonSchema;
  readonly required?: boolean;
  readonly example?: unknown;
}

export interface BodyDoc {
  readonly description: string;
  readonly schema: JsonSchema;
  /** Media types accepted; `application/json` when absent. */
  readonly contentTypes?: readonly string[];
  readonly examples: Examples;
}

export interface ResponseDoc {
  readonly description: string;
  /** Absent: the response has no body. */
  readonly schema?: JsonSchema;
  readonly examples?: Examples;
  readonly headers?: Readonly<Record<string, { readonly description: string; readonly schema: JsonSchema }>>;
  /** The body's media type; `application/json` when absent. */
  readonly contentType?: string;
}

export interface RouteDoc {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly path?: Readonly<Record<string, ParamDoc>>;
  readonly query?: Readonly<Record<string, ParamDoc>>;
  readonly body?: BodyDoc;
  readonly responses: Readonly<Record<number, ResponseDoc>>;
  /** Served without a token (GET /health). */
  readonly public?: boolean;
  /** Only at the server root, not again under /gms. */
  readonly rootOnly?: boolean;
}

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

function errorResponse(description: string, examples: Examples, headers?: ResponseDoc['headers']): ResponseDoc {
  return { description, schema: ref('ErrorResponse'), examples, ...(headers ? { headers } : {}) };
}

const one = (summary: string, value: unknown): Examples => ({ error: { summary, value } });

/** The error answers a route can give, by status (docs/contract.md §4). */
export const ERRORS = {
  validation: (examples: Examples): ResponseDoc =>
    errorResponse('`Validation Error` (the message says what is wrong), or `Invalid urn!: <urn>` when the URN the request addresses does not parse.', examples),
  unauthorized: errorResponse(
    'No token, or an unknown, revoked or expired one. Send `Authorization: Bearer <token>` (the **Authorize** button above).',
    one('Missing token', { error: 'Unauthorized', message: 'Missing access token: send Authorization: Bearer <token>' }),
  ),
  forbidden: (scope: 'write' | 'admin', operation: string): ResponseDoc =>
    errorResponse(
      `The token's scope is too small: this operation needs \`${scope}\`.`,
      one('Read token', { error: 'Forbidden', message: `${operation} needs a token with ${scope} scope; this token has read scope` }),
    ),
  notFound: (examples: Examples): ResponseDoc => errorResponse('Not found.', examples),
  precondition: errorResponse(
    'The version the write names (`If-Match`, `If-Version-Match`, or `headers.If-Version-Match` in the body) is not the stored one: the aspect changed since it was read. `details` says who wrote since, when, and what changed.',
    one('Stale version', {
      error: 'Precondition Error',
      message:
        'structuredProperties of urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD) is at version 4, not 3 as read, so this write would overwrite a change it did not see. Since then: urn:li:corpuser:bob at 2026-12-06T10:00:00.000Z (console). Changed: urn:li:structuredProperty:io.acme.tier: silver → bronze. Read it again and re-apply your change, or send the new version to overwrite.',
      details: {
        expectedVersion: '3',
        currentVersion: '4',
        writesSince: [{ version: '4', actor: 'urn:li:corpuser:bob', time: 1796551200000, via: 'console' }],
        changes: [{ propertyUrn: 'urn:li:structuredProperty:io.acme.tier', before: ['silver'], after: ['bronze'] }],
      },
    }),
  ),
  tooLarge: errorResponse(
    'The body is larger than `BODY_LIMIT_BYTES` (16 MiB by default).',
    one('Too large', { error: 'Payload Too Large', message: 'The request body is larger than the server accepts' }),
  ),
  mediaType: errorResponse(
    'The body is not JSON (`application/json` or another `application/*+json` type).',
    one('Plain text', { error: 'Unsupported Media Type', message: 'Unsupported Media Type' }),
  ),
  rateLimited: errorResponse(
    'More requests than `RATE_LIMIT_PER_MINUTE` from this token; retry after `Retry-After` seconds.',
    one('Throttled', { error: 'Too Many Requests', message: 'Rate limit of 6000 requests per minute exceeded; retry in 12 s' }),
    { 'Retry-After': { description: 'Seconds until the limit resets.', schema: { type: 'integer' } } },
  ),
  internal: errorResponse(
    'An unexpected failure; details go to the server log only, never into the response.',
    one('Internal error', { error: 'Internal server error occurred' }),
  ),
} as const;

export const NO_BODY = (description: string): ResponseDoc => ({ description });

/** The answers every authenticated route can give besides its own. */
export function commonErrors(scope: 'read' | 'write' | 'admin', operation: string): Record<number, ResponseDoc> {
  const errors: Record<number, ResponseDoc> = { 401: ERRORS.unauthorized, 429: ERRORS.rateLimited, 500: ERRORS.internal };
  if (scope !== 'read') errors[403] = ERRORS.forbidden(scope, operation);
  return errors;
}

/** The answers of routes that read a JSON body. */
export function bodyErrors(): Record<number, ResponseDoc> {
  return { 413: ERRORS.tooLarge, 415: ERRORS.mediaType };
}

export const scopeNote = (scope: 'read' | 'write' | 'admin'): string => `\n\nNeeds a token with **${scope}** scope.`;
