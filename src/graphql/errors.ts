/**
 * The one place where errors become GraphQL errors (docs/contract.md §8): a ServiceError keeps its
 * message (the same text REST returns) and gets an `extensions.code`; anything else
 * becomes a generic internal error, never with a stack trace.
 */
import { unwrapResolverError } from '@apollo/server/errors';
import type { GraphQLFormattedError } from 'graphql';
import { ServiceError, type ErrorCode } from '../domain/errors.js';
import type { Logger } from '../logger.js';

const CODES: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'BAD_USER_INPUT',
  INVALID_URN: 'BAD_USER_INPUT',
  SOFT_DELETED: 'BAD_USER_INPUT',
  INCOMPATIBLE_CHANGE: 'BAD_USER_INPUT',
  ALREADY_EXISTS: 'BAD_USER_INPUT',
  PRECONDITION_FAILED: 'BAD_USER_INPUT',
  PAYLOAD_TOO_LARGE: 'BAD_USER_INPUT',
  UNSUPPORTED_MEDIA_TYPE: 'BAD_USER_INPUT',
  NOT_FOUND: 'NOT_FOUND',
  UNAUTHORIZED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  RATE_LIMITED: 'RATE_LIMITED',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE',
};

/** Apollo codes for errors Apollo itself raises before resolvers run; these pass through. */
const APOLLO_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
]);

const MAX_MESSAGE = 4000;

export function createErrorFormatter(log: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const base = { message: formatted.message, ...(formatted.locations ? { locations: formatted.locations } : {}), ...(formatted.path ? { path: formatted.path } : {}) };
    if (original instanceof ServiceError) {
      return {
        ...base,
        // Domain messages quote input up to 200 characters; this bounds whatever slipped through.
        message: original.message.length <= MAX_MESSAGE ? original.message : `${original.message.slice(0, MAX_MESSAGE)}… (${original.message.length - MAX_MESSAGE} more characters)`,
        extensions: { code: CODES[original.code], ...(original.field ? { field: original.field } : {}) },
      };
    }
    const code = formatted.extensions?.code;
    const field = formatted.extensions?.field;
    if (typeof code === 'string' && APOLLO_CODES.has(code)) return { ...base, extensions: { code, ...(typeof field === 'string' ? { field } : {}) } };
    log.error({ err: original }, 'unhandled GraphQL error');
    return { ...base, message: 'Internal server error occurred', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  };
}
