/**
 * The one place where errors become HTTP responses (SPEC 4): bodies are
 * `{"error": <kind>, "message": <detail>}`, never with a stack trace or SQL.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidUrnError, ServiceError, type ErrorCode } from '../domain/errors.js';

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
  PAYLOAD_TOO_LARGE: [413, 'Payload Too Large'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'Unsupported Media Type'],
  RATE_LIMITED: [429, 'Too Many Requests'],
  UNAVAILABLE: [503, 'Service Unavailable'],
};

/** Kinds for 4xx errors raised by Fastify or its plugins rather than by our services. */
const GENERIC_KINDS: Record<number, string> = {
  404: 'Not Found',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
};

export interface HttpError {
  readonly status: number;
  readonly body: { error: string; message?: string };
}

export function httpErrorOf(err: unknown): HttpError | undefined {
  if (err instanceof ServiceError) {
    const [status, kind] = STATUS[err.code];
    if (err instanceof InvalidUrnError) return { status, body: { error: `Invalid urn!: ${err.urn}`, message: err.message } };
    return { status, body: { error: kind, message: err.message } };
  }
  const fastifyError = err as FastifyError;
  switch (fastifyError?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, body: { error: 'Payload Too Large', message: 'The request body is larger than the server accepts' } };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 415, body: { error: 'Unsupported Media Type', message: fastifyError.message } };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, body: { error: 'Validation Error', message: 'The request body is empty; a JSON body is required' } };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, body: { error: 'Validation Error', message: `Malformed JSON body: ${fastifyError.message}` } };
  }
  if (err instanceof SyntaxError && fastifyError.statusCode === 400) {
    return { status: 400, body: { error: 'Validation Error', message: `Malformed JSON body: ${err.message}` } };
  }
  const status = fastifyError?.statusCode;
  if (status && status >= 400 && status < 500) {
    return { status, body: { error: GENERIC_KINDS[status] ?? 'Validation Error', message: fastifyError.message } };
  }
  return undefined;
}

export function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const mapped = httpErrorOf(err);
  if (mapped) {
    if (mapped.status === 429 && !reply.getHeader('retry-after')) reply.header('retry-after', '1');
    return reply.code(mapped.status).type('application/json').send(mapped.body);
  }
  request.log.error({ err }, 'unhandled error');
  return reply.code(500).type('application/json').send({ error: 'Internal server error occurred' });
}

export function sendNoEndpoint(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split('?')[0];
  return reply.code(404).type('application/json').send({ error: `No endpoint ${request.method} ${path}.` });
}
