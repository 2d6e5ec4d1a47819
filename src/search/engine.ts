/**
 * The one wrapper around the Meilisearch client that the rest of the service calls
 * (settings.ts and httpClient.ts, its node:http transport, import the client's types
 * too): health and the CONTAINS filter feature; index management (creating indexes
 * with their settings, the scratch index a rebuild fills and swaps in, dropping a
 * prefix's indexes); document writes that wait for their task, or are enqueued so the
 * next batch is built meanwhile; multi-index searches. Client failures become two kinds
 * of error: the engine is not reachable (SearchUnavailableError; callers retry or
 * answer 503) or it refused the request (SearchRequestError, with Meilisearch's code).
 * A search answers with the request it sent, as a value: the search service hands it
 * to whoever asked to see it (an admin's `X-Propgraph-Explain`, rest/explainHeader.ts).
 */
import {
  Meilisearch,
  MeilisearchRequestError,
  MeilisearchRequestTimeOutError,
  type MultiSearchQuery,
} from 'meilisearch';
import type { Logger } from '../platform/logger.js';
import { stringifyInTurns } from '../platform/jsonInTurns.js';
import { backoffMs, sleep } from '../platform/time.js';
import { answeredWithin, EngineAnswerError, nodeHttpClient, postJson } from './httpClient.js';
import type { SearchDocument } from './documents.js';
import { INDEX_FORMAT } from './indexFormat.js';
import type { EngineRequest } from './request.js';
import { INDEX_SETTINGS, indexUid } from './settings.js';

export class SearchUnavailableError extends Error {}

/**
 * Adds documents with their JSON written in turns of the event loop (platform/turns.ts):
 * the client's own addDocuments stringifies the whole batch in one call, which for the
 * indexer's 5,000 documents held the event loop 40 to 190 ms at a time during a
 * migration of 100,000 holders (BENCHMARKS.md, "Migration of a property held by
 * 100,000 datasets").
 */
async function addDocuments(index: ReturnType<Meilisearch['index']>, documents: readonly SearchDocument[]) {
  return index.addDocumentsFromString(await stringifyInTurns(documents), 'application/json', { primaryKey: 'id' });
}

/** Task polls: 5 ms at first (most of our tasks are short), doubling to 50 ms. */
const TASK_POLL_BACKOFF = { baseMs: 5, maxMs: 50 };

export class SearchRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface EngineOptions {
  readonly url: string;
  readonly apiKey: string | undefined;
  readonly indexPrefix: string;
  readonly log: Logger;
  /** Per HTTP request. */
  readonly requestTimeoutMs?: number;
  /** How long a document write may wait for Meilisearch to apply it. */
  readonly taskTimeoutMs?: number;
}

export interface EngineQuery {
  readonly type: string;
  /** Keywords; empty for none. */
  readonly q?: string;
  readonly offset?: number;
  /** Return each hit's _rankingScore (keyword searches merged across indexes). */
  readonly ranked?: boolean;
  /** Conditions ANDed together (Meilisearch filter expressions). */
  readonly filter: readonly string[];
  readonly limit: number;
  readonly sort?: readonly string[];
  readonly facets?: readonly string[];
}

export interface EngineHit {
  readonly urn: string;
  readonly _k: string;
  readonly _type: string;
  readonly _rankingScore?: number;
  /** Sort keys, when the document has them (documents.ts). */
  readonly _ct?: number;
  readonly _mt?: number;
  readonly _nm?: string;
}

export interface EngineResult {
  readonly type: string;
  readonly hits: readonly EngineHit[];
  readonly facets: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** A multi-search's results, one per query, and the request that asked for them (none for no query). */
export interface EngineAnswer {
  readonly results: EngineResult[];
  readonly request: EngineRequest | null;
}

export interface DocumentWrites {
  readonly type: string;
  readonly upserts: readonly SearchDocument[];
  /** Document ids to delete. */
  readonly deletes: readonly string[];
}

/** The transport's answers with an error status reach us wrapped by the client as request errors. */
function unwrap(err: unknown): unknown {
  return err instanceof MeilisearchRequestError && err.cause instanceof EngineAnswerError ? err.cause : err;
}

function translate(raw: unknown): Error {
  const err = unwrap(raw);
  if (err instanceof SearchUnavailableError || err instanceof SearchRequestError) return err;
  if (err instanceof MeilisearchRequestError || err instanceof MeilisearchRequestTimeOutError) {
    return new SearchUnavailableError(`Meilisearch is not reachable: ${err.message}`);
  }
  if (err instanceof EngineAnswerError) {
    if (err.status >= 500) return new SearchUnavailableError(`Meilisearch failed: ${err.message}`);
    return new SearchRequestError(err.code ?? `http_${err.status}`, err.message);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** How recent an answer from Meilisearch stands for a health check. */
const RECENT_ANSWER_MS = 1000;

export class SearchEngine {
  private readonly client: Meilisearch;
  private readonly taskTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly multiSearchUrl: string;
  /** Whether CONTAINS filters are on (see enableContainsFilter; the embedded engine starts with them on). */
  private containsFilterOn = true;

  constructor(private readonly options: EngineOptions) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.multiSearchUrl = new URL('multi-search', options.url.endsWith('/') ? options.url : `${options.url}/`).toString();
    this.client = new Meilisearch({
      host: options.url,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      timeout: this.requestTimeoutMs,
      clientAgents: ['propgraph'],
      httpClient: nodeHttpClient,
    });
    this.taskTimeoutMs = options.taskTimeoutMs ?? 120_000;
  }

  get url(): string {
    return this.options.url;
  }

  get indexPrefix(): string {
    return this.options.indexPrefix;
  }

  uid(entityType: string): string {
    return indexUid(this.options.indexPrefix, entityType, INDEX_FORMAT);
  }

  /** The format of the indexes this engine reads and writes (indexFormat.ts). */
  get format(): string {
    return INDEX_FORMAT;
  }

  /**
   * Whether Meilisearch answers. One that answered any request in the last second is
   * (issue #29): a health probe then does not queue behind the searches it would be
   * reporting on, which under load held /health for hundreds of milliseconds.
   */
  async healthy(): Promise<boolean> {
    if (answeredWithin(this.options.url, RECENT_ANSWER_MS)) return true;
    try {
      return (await this.client.health()).status === 'available';
    } catch {
      return false;
    }
  }

  /** Meilisearch's task queue, engine-wide: tasks waiting and tasks being processed. */
  async taskQueue(): Promise<{ enqueued: number; processing: number }> {
    return this.guard(async () => {
      const [enqueued, processing] = await Promise.all([
        this.client.tasks.getTasks({ statuses: ['enqueued'], limit: 1 }),
        this.client.tasks.getTasks({ statuses: ['processing'], limit: 1 }),
      ]);
      return { enqueued: enqueued.total, processing: processing.total };
    });
  }

  /**
   * Turns on the CONTAINS filter operator (an experimental Meilisearch feature) where
   * the key may; false when it may not, and CONTAIN filters will then be refused.
   */
  async enableContainsFilter(): Promise<boolean> {
    this.containsFilterOn = await this.client
      .getExperimentalFeatures()
      .then(async (features) => features.containsFilter === true || (await this.client.updateExperimentalFeatures({ containsFilter: true })).containsFilter === true)
      .catch(() => false);
    return this.containsFilterOn;
  }

  /** Whether a CONTAINS filter can be sent: false when enableContainsFilter could not turn it on. */
  get containsFilter(): boolean {
    return this.containsFilterOn;
  }

  /**
   * Creates the indexes that do not exist and (re)applies the settings to all of them
   * (a no-op for Meilisearch when nothing changed). Returns the types whose index
   * was created now, which therefore hold no documents yet.
   */
  async ensureIndexes(types: readonly string[]): Promise<string[]> {
    return this.guard(async () => {
      const existing = new Set((await this.client.getIndexes({ limit: 10_000 })).results.map((i) => i.uid));
      const created = types.filter((t) => !existing.has(this.uid(t)));
      const tasks: number[] = [];
      for (const type of created) tasks.push((await this.client.createIndex(this.uid(type), { primaryKey: 'id' })).taskUid);
      for (const type of types) tasks.push((await this.client.index(this.uid(type)).updateSettings(INDEX_SETTINGS)).taskUid);
      await this.waitAll(tasks, true);
      return created;
    });
  }

  /** Applies the writes and resolves once Meilisearch has; a rejected task throws SearchRequestError. */
  async write(writes: readonly DocumentWrites[]): Promise<void> {
    await this.writeTo(writes.map((w) => ({ ...w, uid: this.uid(w.type) })));
  }

  /**
   * Sends the writes (Meilisearch queues them in arrival order) and returns a wait for
   * their tasks, so a caller can prepare the next batch while this one is applied.
   */
  async enqueue(writes: readonly DocumentWrites[]): Promise<{ wait(): Promise<void> }> {
    const tasks = await this.guard(async () => {
      const uids: number[] = [];
      for (const w of writes) {
        const index = this.client.index(this.uid(w.type));
        if (w.upserts.length > 0) uids.push((await addDocuments(index, w.upserts)).taskUid);
        if (w.deletes.length > 0) uids.push((await index.deleteDocuments(w.deletes as string[])).taskUid);
      }
      return uids;
    });
    return { wait: () => this.guard(() => this.waitAll(tasks, false)) };
  }

  async writeTo(writes: ReadonlyArray<DocumentWrites & { uid: string }>): Promise<void> {
    await this.guard(async () => {
      const tasks: number[] = [];
      for (const w of writes) {
        const index = this.client.index(w.uid);
        if (w.upserts.length > 0) tasks.push((await addDocuments(index, w.upserts)).taskUid);
        if (w.deletes.length > 0) tasks.push((await index.deleteDocuments(w.deletes as string[])).taskUid);
      }
      await this.waitAll(tasks, false);
    });
  }

  async search(queries: readonly EngineQuery[]): Promise<EngineAnswer> {
    if (queries.length === 0) return { results: [], request: null };
    return this.guard(async () => {
      const body = {
        queries: queries.map(
          (q): MultiSearchQuery => ({
            indexUid: this.uid(q.type),
            q: q.q ?? '',
            filter: [...q.filter],
            limit: q.limit,
            offset: q.offset ?? 0,
            ...(q.ranked ? { showRankingScore: true } : {}),
            // The sort keys come back too: pages of several indexes merge in their order.
            attributesToRetrieve: ['urn', '_k', '_type', ...(q.sort ?? []).map((key) => key.split(':')[0]!).filter((a) => a !== '_k')],
            ...(q.sort ? { sort: [...q.sort] } : {}),
            ...(q.facets && q.facets.length > 0 ? { facets: [...q.facets] } : {}),
          }),
        ),
      };
      const response = (await postJson(this.multiSearchUrl, this.options.apiKey, body, this.requestTimeoutMs)) as { results: Array<{ hits: unknown[]; facetDistribution?: unknown }> };
      const results = response.results.map((r, i) => ({
        type: queries[i]!.type,
        hits: r.hits as unknown as EngineHit[],
        facets: (r.facetDistribution ?? {}) as Record<string, Record<string, number>>,
      }));
      return { results, request: { path: '/multi-search', body } };
    });
  }

  /**
   * Empties the live indexes of `types` in place, all requests sent before any is waited
   * for: what a rebuild does for the types that hold no entity, rather than creating,
   * swapping in and dropping a scratch index for each, one Meilisearch task after another.
   */
  async clearIndexes(types: readonly string[]): Promise<void> {
    await this.guard(async () => {
      const tasks = await Promise.all(types.map(async (type) => (await this.client.index(this.uid(type)).deleteAllDocuments()).taskUid));
      await this.waitAll(tasks, false);
    });
  }

  /** A fresh, empty index beside the live one of `type`, for a rebuild. */
  async createScratchIndex(type: string, suffix: string): Promise<string> {
    const uid = `${this.uid(type)}__${suffix}`;
    return this.guard(async () => {
      await this.deleteIndexIfExists(uid);
      const tasks = [(await this.client.createIndex(uid, { primaryKey: 'id' })).taskUid, (await this.client.index(uid).updateSettings(INDEX_SETTINGS)).taskUid];
      await this.waitAll(tasks, true);
      return uid;
    });
  }

  /** Makes the scratch index the live index of `type` and drops the old one. */
  async promoteScratchIndex(type: string, scratchUid: string): Promise<void> {
    await this.guard(async () => {
      await this.ensureIndexes([type]);
      const live = this.uid(type);
      const scratchCreated = String((await this.client.getRawIndex(scratchUid)).createdAt);
      await this.client.swapIndexes([{ indexes: [live, scratchUid], rename: false }]);
      // A key limited to some indexes cannot see swap tasks. Tasks run in the order they were
      // enqueued, so a no-op enqueued after the swap finishes after it; then the live uid
      // must hold the scratch index (whose creation time travels with it).
      const marker = await this.client.index(live).updateSettings(INDEX_SETTINGS);
      await this.waitAll([marker.taskUid], false);
      const liveCreated = String((await this.client.getRawIndex(live)).createdAt);
      if (liveCreated !== scratchCreated) throw new SearchRequestError('swap_failed', `swapping ${scratchUid} into ${live} did not take effect`);
      await this.deleteIndexIfExists(scratchUid);
    });
  }

  /**
   * Drops the indexes under this engine's prefix that belong to another index format
   * (an earlier version's); returns their uids. Only safe where no other version can
   * still be reading them (the bundled engine, which one server owns).
   */
  async dropOtherFormats(types: readonly string[]): Promise<string[]> {
    return this.guard(async () => {
      const mine = new Set(types.map((t) => this.uid(t)));
      const legacy = new Set(types.map((t) => `${this.options.indexPrefix}${t}`));
      const formatted = new RegExp(`^${this.options.indexPrefix.replace(/[-]/g, '\\-')}[A-Za-z]+_f[0-9a-f]{8}$`);
      const all = (await this.client.getIndexes({ limit: 10_000 })).results.map((i) => i.uid);
      const others = all.filter((uid) => !mine.has(uid) && (legacy.has(uid) || formatted.test(uid)));
      const tasks: number[] = [];
      for (const uid of others) tasks.push((await this.client.deleteIndex(uid)).taskUid);
      await this.waitAll(tasks, false);
      return others;
    });
  }

  /** Drops every index under this engine's prefix (test clean-up). */
  async dropAllIndexes(): Promise<void> {
    await this.guard(async () => {
      const all = (await this.client.getIndexes({ limit: 10_000 })).results.map((i) => i.uid);
      const tasks: number[] = [];
      for (const uid of all.filter((u) => u.startsWith(this.options.indexPrefix))) tasks.push((await this.client.deleteIndex(uid)).taskUid);
      await this.waitAll(tasks, false);
    });
  }

  private async deleteIndexIfExists(uid: string): Promise<void> {
    try {
      const task = await this.client.deleteIndex(uid);
      await this.waitAll([task.taskUid], false);
    } catch (raw) {
      const err = unwrap(raw);
      if (!(err instanceof EngineAnswerError && err.code === 'index_not_found')) throw raw;
    }
  }

  /** Waits for tasks; a failed one throws (an already-existing index is fine when `tolerateExists`). */
  private async waitAll(taskUids: readonly number[], tolerateExists: boolean): Promise<void> {
    for (const uid of taskUids) {
      const task = await this.waitTask(uid);
      if (task.status === 'succeeded') continue;
      const code = task.error?.code ?? task.status;
      if (tolerateExists && code === 'index_already_exists') continue;
      if (code === 'index_not_found' && task.type === 'indexDeletion') continue;
      throw new SearchRequestError(code, `Meilisearch task ${uid} (${task.type}) ${task.status}: ${task.error?.message ?? ''}`);
    }
  }

  /** Polls a task until it ends (the client's waitForTask leaks an abort listener per poll). */
  private async waitTask(uid: number): Promise<Awaited<ReturnType<Meilisearch['tasks']['getTask']>>> {
    const deadline = Date.now() + this.taskTimeoutMs;
    for (let polls = 1; ; polls++) {
      const task = await this.client.tasks.getTask(uid);
      if (task.status === 'succeeded' || task.status === 'failed' || task.status === 'canceled') return task;
      if (Date.now() > deadline) throw new SearchUnavailableError(`Meilisearch task ${uid} did not finish within ${this.taskTimeoutMs} ms`);
      await sleep(backoffMs(polls, TASK_POLL_BACKOFF));
    }
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw translate(err);
    }
  }
}
