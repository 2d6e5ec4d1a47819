/**
 * Read-your-writes made explicit (docs/contract.md §12): whether the writes of one request were in
 * the search index when it answered. A write that waited and saw its changes indexed
 * notes `indexed`; one that returned before that (the INDEX_WAIT_MS bound ran out, the
 * indexer is failing, or the caller asked not to wait) notes `pending`. The edge opens
 * one report per request (withIndexStatusReport) and turns it into the
 * `X-Index-Status` header and, for GraphQL, `extensions.indexStatus`.
 *
 * The report travels with the request's async context, so that every service write,
 * however deep, can note its status without each signature carrying it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export type IndexStatus = 'indexed' | 'pending';

export class IndexStatusReport {
  private noted: IndexStatus | null = null;
  private last = 0n;

  /** Null when the request wrote nothing. */
  get status(): IndexStatus | null {
    return this.noted;
  }

  /** The highest change-log id the request wrote (0 when it changed nothing): what its write trace covers. */
  get lastChange(): bigint {
    return this.last;
  }

  /** One pending write makes the whole request pending. */
  note(status: IndexStatus, changeIds: readonly bigint[] = []): void {
    if (this.noted !== 'pending') this.noted = status;
    for (const id of changeIds) if (id > this.last) this.last = id;
  }
}

const reports = new AsyncLocalStorage<IndexStatusReport>();

export function withIndexStatusReport<T>(report: IndexStatusReport, fn: () => T): T {
  return reports.run(report, fn);
}

/** Notes the index status of a write, and the changes it made, in the current request's report, if there is one. */
export function noteIndexStatus(status: IndexStatus, changeIds: readonly bigint[] = []): void {
  reports.getStore()?.note(status, changeIds);
}
