/**
 * The service's error vocabulary. Every failure a caller can cause is one of these,
 * with a stable code and, where it helps, the field at fault. REST and GraphQL each
 * map them to their wire form in one place (rest/errors.ts, graphql/errors.ts).
 */
export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'INVALID_URN'
  | 'NOT_FOUND'
  | 'SOFT_DELETED'
  | 'INCOMPATIBLE_CHANGE'
  | 'ALREADY_EXISTS'
  | 'PRECONDITION_FAILED'
  | 'CONFLICT'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE';

/** What a refusal is about, beyond the field at fault: read by the edges, never parsed out of the message. */
export interface ErrorSubject {
  /** The structured property whose values (or definition, or soft delete) the refusal is about. */
  readonly propertyUrn?: string;
}

export class ServiceError extends Error {
  /** See ErrorSubject. */
  readonly propertyUrn?: string;
  /**
   * Structured facts beside the message, as JSON, for clients to act on (the items of a
   * refused batch, the writes a stale write missed): REST answers them as `details`,
   * GraphQL in the error's extensions.
   */
  readonly details?: Readonly<Record<string, unknown>>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
    subject: ErrorSubject = {},
  ) {
    super(message);
    this.name = new.target.name;
    if (subject.propertyUrn !== undefined) this.propertyUrn = subject.propertyUrn;
  }

  /** What kind of refusal this is, for clients (GraphQL's `extensions.reason`): the code, unless a subclass says more. */
  get reason(): string {
    return this.code;
  }
}

/**
 * The same error told at another path: an interface names fields its own way (GraphQL's
 * `structuredPropertyInputParams[0].values`, where the aspect says `values`).
 */
export function relocated<E extends ServiceError>(err: E, field: string, message: string): E {
  const copy = Object.create(Object.getPrototypeOf(err)) as E;
  Object.assign(copy, err);
  Object.defineProperty(copy, 'message', { value: message, writable: true, configurable: true });
  Object.defineProperty(copy, 'field', { value: field, enumerable: true });
  return copy;
}

/** Any rule about the content of a request: types, allowed values, shapes, limits. */
export class ValidationError extends ServiceError {
  constructor(message: string, field?: string, subject?: ErrorSubject) {
    super('VALIDATION_FAILED', message, field, subject);
  }
}

/** A URN that does not parse, where it names the entity a request addresses. */
export class InvalidUrnError extends ServiceError {
  constructor(readonly urn: string, reason?: string) {
    super('INVALID_URN', reason ? `Invalid urn!: ${urn} (${reason})` : `Invalid urn!: ${urn}`, 'urn');
  }
}

export class NotFoundError extends ServiceError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

export class SoftDeletedError extends ServiceError {
  constructor(message: string, field?: string, subject?: ErrorSubject) {
    super('SOFT_DELETED', message, field, subject);
  }
}

export class IncompatibleChangeError extends ServiceError {
  constructor(message: string) {
    super('INCOMPATIBLE_CHANGE', message);
  }
}

/** DataHub's text for a create-only write of an aspect that exists. */
export const ASPECT_EXISTS = 'Cannot perform CREATE since the aspect already exists.';

export class AlreadyExistsError extends ServiceError {
  constructor(message: string) {
    super('ALREADY_EXISTS', message);
  }
}

/**
 * DataHub's create-only refusal: a write asked to create an aspect (createIfNotExists,
 * createStructuredProperty) that exists. Its own class so that an edge can complete the
 * message with how to replace the aspect in its own terms.
 */
export class AspectExistsError extends AlreadyExistsError {
  constructor(message = ASPECT_EXISTS) {
    super(message);
  }
}

export class PreconditionError extends ServiceError {
  constructor(message: string) {
    super('PRECONDITION_FAILED', message);
  }
}

/** The thing is busy with something that must end first (a migration of a property's values in progress). */
export class ConflictError extends ServiceError {
  constructor(message: string, subject?: ErrorSubject) {
    super('CONFLICT', message, undefined, subject);
  }
}

/** A write named the version it read (If-Version-Match, If-Match, expectedVersion), and the aspect has moved on since. */
export class StaleWriteError extends PreconditionError {
  constructor(
    message: string,
    readonly stale: {
      readonly urn: string;
      readonly aspect: string;
      readonly expected: string;
      readonly current: string;
    },
    details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    if (details) Object.defineProperty(this, 'details', { value: details, enumerable: true });
  }

  override get reason(): string {
    return 'STALE';
  }
}

/** One refused item of an all-or-nothing batch: where it was in the request, its entity, and why. */
export interface RefusedItem {
  readonly at: string;
  readonly urn: string;
  readonly error: ServiceError;
}

/**
 * Several items of an all-or-nothing write refused, each for its own reason; nothing was
 * written. Its code is the items' own when they share one (all forbidden: 403), else a
 * validation failure (400); every item is listed, so one answer names every problem.
 */
export class BatchRefusedError extends ServiceError {
  constructor(readonly items: readonly RefusedItem[]) {
    const codes = new Set(items.map((i) => i.error.code));
    const code: ErrorCode = codes.size === 1 ? items[0]!.error.code : 'VALIDATION_FAILED';
    const shown = items.slice(0, 10).map((i) => `${i.at}: ${i.error.message}`);
    const more = items.length > shown.length ? `; and ${items.length - shown.length} more (see details.items)` : '';
    super(code, `${items.length} items of this batch were refused, so nothing was written: ${shown.join('; ')}${more}`);
    Object.defineProperty(this, 'details', {
      value: { items: items.map((i) => ({ at: i.at, urn: i.urn, code: i.error.code, ...(i.error.field ? { field: i.error.field } : {}), message: i.error.message, ...(i.error.details ? { details: i.error.details } : {}) })) },
      enumerable: true,
    });
  }
}

export class UnauthorizedError extends ServiceError {
  constructor(message = 'Missing or invalid access token') {
    super('UNAUTHORIZED', message);
  }
}

export class ForbiddenError extends ServiceError {
  constructor(message: string) {
    super('FORBIDDEN', message);
  }
}

/** A dependency (database, search engine) is not reachable right now. */
export class UnavailableError extends ServiceError {
  constructor(message: string) {
    super('UNAVAILABLE', message);
  }
}

/** The caller has as much work queued as one principal may (a job quota): retry once some of it ends. */
export class QuotaExceededError extends ServiceError {
  constructor(message: string, field?: string) {
    super('RATE_LIMITED', message, field);
  }
}
