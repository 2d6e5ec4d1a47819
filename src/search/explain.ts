/**
 * Explaining a search: the exact requests it sent to Meilisearch, recorded for callers
 * that ask (an admin's `X-Propgraph-Explain: true`). They show how a query was planned,
 * and let a benchmark send the very same request straight to the engine as its baseline.
 * The record travels with the request's async context, so nothing on the search path
 * carries it, and a search that nobody explains pays one lookup.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface EngineRequest {
  readonly path: string;
  readonly body: unknown;
}

const records = new AsyncLocalStorage<EngineRequest[]>();

export function withExplanation<T>(record: EngineRequest[], fn: () => T): T {
  return records.run(record, fn);
}

export function recordEngineRequest(request: EngineRequest): void {
  records.getStore()?.push(request);
}
