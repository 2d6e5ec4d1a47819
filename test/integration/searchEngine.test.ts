/**
 * How the search engine wrapper (src/search/engine.ts) reports what Meilisearch refuses,
 * against a real Meilisearch: an answer with an error status becomes a
 * SearchRequestError carrying Meilisearch's code, whether it came through the client
 * (index management) or the direct search path, and a missing index is no error where
 * the wrapper deletes one that may not exist.
 */
import { randomUUID } from 'node:crypto';
import { createLogger } from '../../src/platform/logger.js';
import { SearchEngine, SearchRequestError } from '../../src/search/engine.js';
import { searchAvailableForTests, sharedMeilisearch } from '../support/server.js';

(searchAvailableForTests() ? describe : describe.skip)('the search engine wrapper', () => {
  let engine: SearchEngine;

  beforeAll(() => {
    const meili = sharedMeilisearch();
    engine = new SearchEngine({ url: meili.url, apiKey: meili.key, indexPrefix: `engine_${randomUUID().slice(0, 8)}`, log: createLogger('silent') });
  });

  afterAll(async () => {
    await engine?.dropAllIndexes();
  });

  async function refusal(promise: Promise<unknown>): Promise<SearchRequestError> {
    const outcome = await promise.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(outcome).toBeInstanceOf(SearchRequestError);
    return outcome as SearchRequestError;
  }

  test("a search of an index that does not exist is refused with Meilisearch's code, through the direct search path", async () => {
    const err = await refusal(engine.search([{ type: 'dataset', filter: [], limit: 1 }]));
    expect(err.code).toBe('index_not_found');
    expect(err.message).toMatch(/not found/i);
  });

  test('a filter Meilisearch refuses is a SearchRequestError with its code and its message', async () => {
    await engine.ensureIndexes(['dataset']);
    const err = await refusal(engine.search([{ type: 'dataset', filter: ['urn = = "x"'], limit: 1 }]));
    expect(err.code).toBe('invalid_search_filter');
    expect(err.message.length).toBeGreaterThan(0);
  });

  test("through the client too, an index that does not exist is refused with Meilisearch's code", async () => {
    const err = await refusal(engine.promoteScratchIndex('dataset', 'no_such_scratch_index'));
    expect(err.code).toBe('index_not_found');
  });

  test('through the client, an index created, replaced by a scratch one and dropped, missing indexes are no error where they may be missing', async () => {
    const scratch = await engine.createScratchIndex('dataset', 'first');
    expect(scratch).toMatch(/__first$/);
    // Created again: the wrapper deletes the one it made before (and would pass a missing one by).
    expect(await engine.createScratchIndex('dataset', 'first')).toBe(scratch);
    await engine.promoteScratchIndex('dataset', scratch);
    const answer = await engine.search([{ type: 'dataset', filter: [], limit: 1 }]);
    expect(answer.results).toEqual([{ type: 'dataset', hits: [], facets: {} }]);
  });
});
