/**
 * The one place where errors become HTTP responses (docs/contract.md §4, §12): every body is
 * `{"error": <kind>, "message": <detail>}`, Fastify's own errors included, never with
 * a stack trace or SQL, and never quoting more than a bounded amount of input. On the
 * GraphQL paths the same errors are GraphQL-shaped (`{"errors": [...]}`).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidUrnError, ServiceError, type ErrorCode } from '../domain/errors.js';
import { INPUT_LIMITS, quoteInput } from '../domain/inputLimits.js';

const STATUS: Record<ErrorCode, [number, string]> = {
  VALIDATION_FAILED: [400, 'Validation Error'],
  INVALID_URN: [400, 'Invalid urn!'],
  SOFT_DELETED: [400, 'Validation Error'],
  INCOMPATIBLE_CHANGE: [400, 'Validation Error'],
  ALREADY_EXISTS: [400, 'Validation Error'],
  NOT_FOUND: [404, 'Not Found'],
  UNAUTHORIZED: [401, 'Unauthorized'],
  FORBIDDEN: [403, 'Forbidden'],
  PRECONDITION_FAILED: [412, 'Precondition Error'],
  CONFLICT: [409, 'Conflict'],
  PAYLOAD_TOO_LARGE: [413, 'Payload Too Large'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'Unsupported Media Type'],
  RATE_LIMITED: [429, 'Too Many Requests'],
  UNAVAILABLE: [503, 'Service Unavailable'],
};

/** Kinds for 4xx errors raised by Fastify or its plugins rather than by our services. */
const GENERIC_KINDS: Record<number, string> = {
  404: 'Not Found',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
};

/** GraphQL's codes for the same statuses, for errors answered on the GraphQL paths. */
const GRAPHQL_CODES: Record<number, string> = { 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 429: 'RATE_LIMITED', 503: 'SERVICE_UNAVAILABLE' };

/** Domain messages quote input up to INPUT_LIMITS.quotedCharacters; this bounds whatever slipped through. */
const MAX_MESSAGE = 20 * INPUT_LIMITS.quotedCharacters;

const INTERNAL = {
  error: 'Internal server error occurred',
  message: 'The server failed on this request; the failure is logged. Retry later, or report it with the time of the request.',
};

export interface HttpError {
  readonly status: number;
  readonly body: { error: string; message: string; details?: Readonly<Record<string, unknown>> };
}

function bounded(message: string): string {
  return message.length <= MAX_MESSAGE ? message : `${message.slice(0, MAX_MESSAGE)}… (${message.length - MAX_MESSAGE} more characters)`;
}

function pathOf(url: string): string {
  return url.split('?')[0]!;
}

function frameworkError(err: FastifyError, url: string): HttpError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, body: { error: 'Payload Too Large', message: 'The request body is larger than the server accepts' } };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 415, body: { error: 'Unsupported Media Type', message: `${err.message}; send JSON (application/json or another application/*+json type)` } };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, body: { error: 'Validation Error', message: 'The request body is empty; a JSON body is required' } };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, body: { error: 'Validation Error', message: `Malformed JSON body: ${err.message}` } };
    case 'FST_ERR_BAD_URL':
      return {
        status: 400,
        body: { error: 'Validation Error', message: `The path ${quoteInput(pathOf(url))} is not validly percent-encoded; encode each reserved or non-ASCII character as UTF-8 bytes (%XX)` },
      };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 414, body: { error: 'URI Too Long', message: 'A path segment is longer than the limit of 4096 characters; a urn that long cannot be stored either' } };
  }
  return undefined;
}

export function httpErrorOf(err: unknown, url = ''): HttpError | undefined {
  if (err instanceof ServiceError) {
    const [status, kind] = STATUS[err.code];
    if (err instanceof InvalidUrnError) return { status, body: { error: `Invalid urn!: ${err.urn}`, message: err.message } };
    return { status, body: { error: kind, message: err.message, ...(err.details ? { details: err.details } : {}) } };
  }
  const fastifyError = err as FastifyError;
  const known = fastifyError?.code ? frameworkError(fastifyError, url) : undefined;
  if (known) return known;
  if (err instanceof SyntaxError && fastifyError.statusCode === 400) {
    return { status: 400, body: { error: 'Validation Error', message: `Malformed JSON body: ${err.message}` } };
  }
  const status = fastifyError?.statusCode;
  if (status && status >= 400 && status < 500) {
    return { status, body: { error: GENERIC_KINDS[status] ?? 'Validation Error', message: String(fastifyError.message) } };
  }
  return undefined;
}

export interface ErrorSenderOptions {
  /** Paths whose errors must be GraphQL-shaped. */
  readonly graphqlPaths: readonly string[];
}

/** The error handler of the whole server, for route and framework errors alike. */
export function errorSender(options: ErrorSenderOptions) {
  return (err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const mapped = httpErrorOf(err, request.url);
    if (!mapped) request.log.error({ err }, 'unhandled error');
    const { status, body }: HttpError = mapped ?? { status: 500, body: INTERNAL };
    if (status === 429 && !reply.getHeader('retry-after')) reply.header('retry-after', '1');
    const message = bounded(body.message);
    reply.code(status).type('application/json');
    if (options.graphqlPaths.includes(pathOf(request.url))) {
      const code = status >= 500 ? 'INTERNAL_SERVER_ERROR' : (GRAPHQL_CODES[status] ?? 'BAD_USER_INPUT');
      return reply.send({ errors: [{ message, extensions: { code } }] });
    }
    return reply.send({ error: body.error, message, ...(body.details ? { details: body.details } : {}) });
  };
}

/** The unknown-route 404: DataHub's `error` text, and a `message` saying where the routes are listed. */
export function sendNoEndpoint(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const route = `${request.method} ${pathOf(request.url).slice(0, INPUT_LIMITS.quotedCharacters)}`;
  return reply
    .code(404)
    .type('application/json')
    .send({
      error: `No endpoint ${route}.`,
      message:
        `No route matches ${route}. The REST routes are listed in the OpenAPI document at /openapi/v3/api-docs ` +
        '(browse them at /openapi/swagger-ui); GraphQL is served at /api/graphql.',
    });
}
