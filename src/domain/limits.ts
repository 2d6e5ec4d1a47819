/**
 * Bounds on what one request may store (SPEC 10, issues #5 and #14). Errors name the
 * limit. The batch and aspect sizes also bound what one request costs the server's one
 * event loop (parsing, validating, serialising), and so how long it can delay others.
 */
import { ValidationError } from './errors.js';

export const LIMITS = {
  valuesPerProperty: 1000,
  stringValueLength: 10_000,
  richTextValueLength: 100_000,
  nameLength: 500,
  descriptionLength: 10_000,
  allowedValues: 1000,
  entityTypesPerDefinition: 100,
  propertiesPerEntity: 1000,
  batchEntities: 1000,
  /**
   * Characters of one aspect's JSON: 512 KiB, a schema of about 2,000 to 3,000 fields.
   * Eight clients reading an aspect of this size at once keep /health within 0.5 s on a
   * loaded 2-core machine; at 1 MiB they did not.
   */
  aspectJsonLength: 512 * 1024,
  /** Results one list or search page returns at most; larger counts are capped to it. */
  pageSize: 1000,
  /**
   * Results one request may ask for, on every interface (issue #29): the summed `count`
   * of a GraphQL operation's search and list fields (aliases and repeated fragments
   * included), the entity-aspect pairs of a batch read, a batch write or a write trace,
   * the proposals of a Rest.li batch. Fifty aliases of 1,000 hits each held /health
   * above two seconds under four clients.
   */
  requestedResults: 10_000,
} as const;

/** Throws a ValidationError naming the limit when a request asks for more results than it allows. */
export function checkRequestedResults(asked: number, what: string, field: string): void {
  if (asked <= LIMITS.requestedResults) return;
  throw new ValidationError(
    `${what} asks for ${asked} results, more than the limit of ${LIMITS.requestedResults} per request; split it into several requests`,
    field,
  );
}
