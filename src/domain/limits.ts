import { ValidationError } from './errors.js';

/**
 * Bounds on what one request may store (docs/contract.md §10, issues #5 and #14). Errors name the
 * limit. The batch and aspect sizes also bound what one request costs the server's one
 * event loop (parsing, validating, serialising), and so how long it can delay others.
 */
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
   * Rows of one value import (a CSV file), written in one transaction: all of them or
   * none. Larger files are split by the person importing them.
   */
  importRows: 10_000,
  /** Entities one bulk edit may select (a search's hits, or URNs named): larger selections are split by their query. */
  bulkEditEntities: 10_000,
  /**
   * Characters of what one job keeps as its inputs (a bulk edit's values and named URNs,
   * as JSON): 2 MiB. Ten bulk edits of 10.6 MB each made one jobs listing answer 106 MB
   * (issue #46 item 3); a selection by query keeps the query, not its hits.
   */
  jobInputLength: 2 * 1024 * 1024,
  /**
   * Jobs one principal may have queued or running at once (bulk edits, test runs): one
   * token looping on `POST /tests/run` queued 1,273 evaluations ahead of an admin's
   * cleanup (issue #46 item 6). Beyond, 429 until one of them ends.
   */
  unfinishedJobsPerPrincipal: 10,
  /**
   * Characters of one aspect's JSON: 512 KiB, a schema of about 2,000 to 3,000 fields.
   * Eight clients reading an aspect of this size at once keep /health responsive on a
   * loaded 2-core machine; at twice the size they did not (BENCHMARKS.md, "Figures that
   * explained code choices").
   */
  aspectJsonLength: 512 * 1024,
  /**
   * Results one request may ask for, on every interface (issue #29): the summed `count`
   * of a GraphQL operation's search and list fields (aliases and repeated fragments
   * included), the entity-aspect pairs of a batch read, a batch write or a write trace,
   * the proposals of a Rest.li batch. Fifty aliases of 1,000 hits each held /health
   * above two seconds under four clients.
   */
  requestedResults: 10_000,
  /**
   * Characters of stored versions (each, and the one before it) one page of value
   * history reads: 64 KiB. A page ends at its `count` or here, whichever comes first,
   * and says where to go on. Ten aliases of valueHistory(count: 1000), 2.4 MB each, held
   * /health at a p99 of 1.4 s under four clients (issue #46 item 2); at 256 KiB a page,
   * /health/live's p99 was still 128 ms (BENCHMARKS.md, "Under attack: issue #46's ...").
   */
  historyPageCharacters: 64 * 1024,
} as const;

/** Throws a ValidationError naming the limit when a request asks for more results than it allows. */
export function checkRequestedResults(asked: number, what: string, field: string): void {
  if (asked <= LIMITS.requestedResults) return;
  throw new ValidationError(
    `${what} asks for ${asked} results, more than the limit of ${LIMITS.requestedResults} per request; split it into several requests`,
    field,
  );
}

/** A batch (of entities to write or read) within LIMITS.batchEntities, on every interface that takes one. */
export function requireBatchSize(size: number, field = 'body'): void {
  if (size > LIMITS.batchEntities) {
    throw new ValidationError(`${field} holds ${size} entities, more than the limit of ${LIMITS.batchEntities} entities in one batch; split it`, field);
  }
}

/**
 * Page sizes, on every interface that pages (searches, listings, jobs, tokens): a
 * `count` is a whole number >= 0 (0 asks for totals or facets alone); larger than
 * `maxCount` is capped silently, as DataHub does; absent, the listing's own default.
 */
export const PAGE_LIMITS = { maxCount: 1000, searchCount: 10, jobsCount: 20, tokensCount: 100 } as const;

export function pageSize(count: number | null | undefined, fallback: number, field = 'count'): number {
  if (count === null || count === undefined) return fallback;
  if (!Number.isInteger(count) || count < 0) throw new ValidationError(`${field} must be a whole number >= 0, got ${count}`, field);
  return Math.min(count, PAGE_LIMITS.maxCount);
}
