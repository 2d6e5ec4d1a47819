/**
 * A scrape of /metrics: the counters and histograms as they stand, plus the families
 * sampled at that moment from what this server runs on (telemetry/metrics.ts): the
 * database pool, the change log's positions and the jobs (one statement, given three
 * seconds at most), and Meilisearch's task queue (two small requests, given a second at
 * most). Scrapes that arrive while one is sampling share its sample.
 *
 * Neither engine may hold a scrape up: when every pooled connection is taken is when the
 * pool's gauges matter most, and a scrape waiting for a connection would answer only
 * after Prometheus gave up on it. What did not answer in time is left out of that
 * scrape rather than shown stale.
 */
import type { Logger } from '../platform/logger.js';
import type { SearchEngine } from '../search/engine.js';
import type { Database } from '../store/database.js';
import { workState } from '../store/workState.js';
import {
  changeLogPosition,
  dbPoolConnections,
  indexAppliedPosition,
  indexerLagChanges,
  indexerLagSeconds,
  jobRemainingItems,
  jobs,
  metricsRegistry,
  searchTasks,
} from '../telemetry/metrics.js';

export interface MetricsSource {
  readonly contentType: string;
  /** The metrics in Prometheus's text format. */
  scrape(): Promise<string>;
}

const DATABASE_SAMPLE_TIMEOUT_MS = 3000;
const SEARCH_SAMPLE_TIMEOUT_MS = 1000;

export function metricsScrape(sources: { readonly database: Database; readonly engine: SearchEngine | null; readonly log: Logger }): MetricsSource {
  let sampling: Promise<void> | undefined;
  const sample = async (): Promise<void> => {
    const pool = sources.database.poolState();
    dbPoolConnections.set({ state: 'total' }, pool.total);
    dbPoolConnections.set({ state: 'idle' }, pool.idle);
    dbPoolConnections.set({ state: 'waiting' }, pool.waiting);
    await Promise.all([sampleWork(sources), sampleSearch(sources.engine)]);
  };
  return {
    contentType: metricsRegistry.contentType,
    scrape: async () => {
      sampling ??= sample()
        .catch((err: unknown) => sources.log.warn({ err: (err as Error).message }, 'metrics: sampling failed'))
        .finally(() => {
          sampling = undefined;
        });
      await sampling;
      return metricsRegistry.metrics();
    },
  };
}

async function sampleWork(sources: { readonly database: Database; readonly log: Logger }): Promise<void> {
  let state;
  try {
    state = await within(workState(sources.database.db), DATABASE_SAMPLE_TIMEOUT_MS);
  } catch (err) {
    // Left out, not zeroed: a lag of 0 would read as caught up (reset() zeroes a gauge without labels; remove() drops its sample).
    for (const gauge of [changeLogPosition, indexAppliedPosition, indexerLagChanges, indexerLagSeconds]) gauge.remove();
    for (const gauge of [jobs, jobRemainingItems]) gauge.reset();
    sources.log.warn({ err: (err as Error).message }, 'metrics: the database did not answer');
    return;
  }
  changeLogPosition.set(state.changeLogPosition);
  indexAppliedPosition.set(state.indexedPosition);
  indexerLagChanges.set(state.pendingChanges);
  indexerLagSeconds.set(state.oldestPendingSeconds);
  jobs.reset();
  jobRemainingItems.reset();
  const remaining = new Map<string, number>();
  for (const row of state.jobs) {
    jobs.set({ kind: row.kind, status: row.status }, row.count);
    remaining.set(row.kind, (remaining.get(row.kind) ?? 0) + row.remaining);
  }
  for (const [kind, items] of remaining) jobRemainingItems.set({ kind }, items);
}

async function sampleSearch(engine: SearchEngine | null): Promise<void> {
  if (!engine) {
    searchTasks.reset();
    return;
  }
  try {
    const queue = await within(engine.taskQueue(), SEARCH_SAMPLE_TIMEOUT_MS);
    searchTasks.set({ status: 'enqueued' }, queue.enqueued);
    searchTasks.set({ status: 'processing' }, queue.processing);
  } catch {
    searchTasks.reset();
  }
}

/** The answer of `work`, or a rejection once `ms` have passed (a late answer is dropped). */
async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
