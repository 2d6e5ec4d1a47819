/**
 * The one place where errors become GraphQL errors (docs/contract.md §8): a ServiceError keeps its
 * message (the same text REST returns) and gets an `extensions.code`; anything else
 * becomes a generic internal error, never with a stack trace. Unexpected errors are
 * logged here too, in one line per request however many there are (issue #29: a
 * thousand failing representations were a thousand stack traces, 1.18 MB of log).
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import { ServiceError, type ErrorCode } from '../domain/errors.js';
import type { Logger } from '../platform/logger.js';

const CODES: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'BAD_USER_INPUT',
  INVALID_URN: 'BAD_USER_INPUT',
  SOFT_DELETED: 'BAD_USER_INPUT',
  INCOMPATIBLE_CHANGE: 'BAD_USER_INPUT',
  ALREADY_EXISTS: 'BAD_USER_INPUT',
  PRECONDITION_FAILED: 'BAD_USER_INPUT',
  CONFLICT: 'CONFLICT',
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

/** Whether an error is the client's (a ServiceError, or one Apollo raised before resolvers ran), as opposed to a fault of the server. */
function isExpected(error: unknown, code: unknown): boolean {
  return unwrapResolverError(error) instanceof ServiceError || (typeof code === 'string' && APOLLO_CODES.has(code));
}

/** Unexpected errors of a request as one log line: the first with its stack, how many, and a few more messages. */
export function errorLogPlugin(log: Logger): ApolloServerPlugin {
  return {
    async requestDidStart() {
      let logged = false;
      return {
        async didEncounterErrors({ errors }) {
          if (logged) return;
          const unexpected = errors.filter((e: GraphQLError) => !isExpected(e, e.extensions?.code));
          if (unexpected.length === 0) return;
          logged = true;
          log.error({ err: unwrapResolverError(unexpected[0]), errors: unexpected.length, more: unexpected.slice(1, 5).map((e) => e.message.slice(0, 200)) }, 'unhandled GraphQL error');
        },
      };
    },
  };
}

export function createErrorFormatter() {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const base = { message: formatted.message, ...(formatted.locations ? { locations: formatted.locations } : {}), ...(formatted.path ? { path: formatted.path } : {}) };
    if (original instanceof ServiceError) {
      return {
        ...base,
        // Domain messages quote input up to 200 characters; this bounds whatever slipped through.
        message: original.message.length <= MAX_MESSAGE ? original.message : `${original.message.slice(0, MAX_MESSAGE)}… (${original.message.length - MAX_MESSAGE} more characters)`,
        // `reason` is the service's own code (INCOMPATIBLE_CHANGE, ...): clients tell refusals apart by it, never by the text.
        extensions: { code: CODES[original.code], reason: original.reason, ...(original.field ? { field: original.field } : {}), ...(original.details ? original.details : {}) },
      };
    }
    const code = formatted.extensions?.code;
    const field = formatted.extensions?.field;
    if (typeof code === 'string' && APOLLO_CODES.has(code)) return { ...base, extensions: { code, ...(typeof field === 'string' ? { field } : {}) } };
    return { ...base, message: 'Internal server error occurred', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  };
}
