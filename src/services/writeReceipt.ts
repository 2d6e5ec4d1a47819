/**
 * What a write tells beside its answer: whether its changes were in the search index
 * when it answered (read-your-writes made explicit), and the last change it logged
 * (what DataHub's write trace covers). Every service method that writes returns one
 * with its result; the edges turn the receipts of a request into the `X-Index-Status`
 * header, the `traceparent` header and GraphQL's `extensions.indexStatus`.
 *
 * A write that waited and saw its changes indexed is `indexed`; one that answered
 * before that (the INDEX_WAIT_MS bound ran out, the indexer is failing, or the caller
 * asked not to wait) is `pending`.
 */

export type IndexStatus = 'indexed' | 'pending';

export interface WriteReceipt {
  /** Null when the call wrote nothing (a test evaluation not asked to push, references not found). */
  readonly indexStatus: IndexStatus | null;
  /** The highest change-log id written (0 when nothing changed). */
  readonly lastChange: bigint;
}

/** A write's answer and its receipt. */
export interface Written<T> {
  readonly result: T;
  readonly receipt: WriteReceipt;
}

export const NOTHING_WRITTEN: WriteReceipt = { indexStatus: null, lastChange: 0n };

/** The receipt of two writes: pending when either is, the later of their last changes. */
export function bothWrites(a: WriteReceipt, b: WriteReceipt): WriteReceipt {
  const indexStatus = a.indexStatus === 'pending' || b.indexStatus === 'pending' ? 'pending' : (a.indexStatus ?? b.indexStatus);
  return { indexStatus, lastChange: a.lastChange > b.lastChange ? a.lastChange : b.lastChange };
}

/**
 * The receipts of one request's writes, gathered by its edge: a REST route or a GraphQL
 * resolver adds what each service call returned; the request's answer tells the sum.
 */
export class RequestReceipts {
  private sum: WriteReceipt = NOTHING_WRITTEN;

  add(receipt: WriteReceipt): void {
    this.sum = bothWrites(this.sum, receipt);
  }

  /** Adds a write's receipt and gives back its result. */
  resultOf<T>(written: Written<T>): T {
    this.add(written.receipt);
    return written.result;
  }

  get receipt(): WriteReceipt {
    return this.sum;
  }
}
