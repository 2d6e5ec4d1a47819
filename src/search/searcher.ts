/**
 * Runs searches asked for in domain terms (request.ts) against the engine: plans the
 * Meilisearch queries (attributes, filter strings, the soft-delete condition, sort
 * keys, cursors), runs them in one multi-search, and merges the answers of the
 * indexes of several types into one page or one set of facet counts. Each answer carries
 * the requests sent to the engine for it (`engineRequests`), for a caller that explains.
 */
import { searchableEntityTypes } from '../domain/registry/entityTypes.js';
import { UnavailableError, ValidationError } from '../domain/errors.js';
import type { FilterNode } from '../domain/searchFilter.js';
import { formatDouble } from '../domain/typedValue.js';
import { compileFilter, targetOf, type FieldTarget } from './compileFilter.js';
import { afterCursorFilter, decodeCursor, encodeCursor, type ScrollCursor } from './cursor.js';
import { SearchRequestError, SearchUnavailableError, type EngineHit, type EngineQuery, type EngineResult, type SearchEngine } from './engine.js';
import { MAX_RANKED_HITS } from './settings.js';
import type { EngineRequest, FacetRequest, FacetValue, FacetValues, Page, PageRequest, SearchRequest, SortAttribute } from './request.js';

/** Soft-deleted entities (status.removed) are hits only when asked for, as in DataHub. */
const LIVE_ONLY = '_removed = false';

const EMPTY_PAGE: Page = { hits: [], total: 0, nextScrollId: null, engineRequests: [] };

export class Searcher {
  constructor(private readonly engine: SearchEngine) {}

  /** One page of hits, in URN order (keyset) or, for keywords, by relevance. */
  async page(request: SearchRequest, page: PageRequest): Promise<Page> {
    const cursor = page.scrollId ? decodeCursor(page.scrollId) : null;
    if (page.sortBy && page.order !== 'relevance') {
      const { sortBy, order: direction } = page;
      if (cursor && (cursor.order !== 'sorted' || cursor.by !== sortBy || cursor.direction !== direction)) throw new ValidationError('scrollId belongs to a scroll in another order', 'scrollId');
      if (request.filter.kind === 'none') return EMPTY_PAGE;
      return this.sortedPage(request, this.filterOf(request), page.count, cursor?.order === 'sorted' ? cursor.offset : 0, sortBy, direction);
    }
    const order = page.order === 'relevance' && request.keywords === null ? 'asc' : page.order;
    if (cursor && cursor.order !== order) throw new ValidationError('scrollId belongs to a scroll in another order (or of a query with other keywords)', 'scrollId');
    if (request.filter.kind === 'none') return EMPTY_PAGE;
    const filter = this.filterOf(request);
    return order === 'relevance'
      ? this.rankedPage(request, filter, page.count, cursor?.order === 'relevance' ? cursor.offset : 0)
      : this.keysetPage(request, filter, page.count, cursor?.order === order ? cursor : null, order);
  }

  /**
   * Counts of the most frequent values of each facet over the hits, summed across
   * types: by count descending, then value; at most `limit` per facet.
   */
  async facets(request: SearchRequest, facets: readonly FacetRequest[], limit: number): Promise<FacetValues> {
    const targets = new Map(facets.map((f) => [f.name, targetOf(f.field)]));
    const attrs = [...new Set([...targets.values()].map((t) => t.attr))];
    const { results, engineRequests } =
      request.filter.kind === 'none' || attrs.length === 0
        ? { results: [], engineRequests: [] }
        : await this.run(request.types.map((type) => ({ type, q: request.keywords ?? '', filter: this.filterOf(request), limit: 0, facets: attrs })));
    const values = new Map([...targets].map(([name, target]) => [name, facetValues(results, target, limit)]));
    return { values, engineRequests };
  }

  private filterOf(request: SearchRequest): string[] {
    const out: string[] = request.includeRemoved ? [] : [LIVE_ONLY];
    if (!this.engine.containsFilter && usesContains(request.filter)) {
      throw new ValidationError("CONTAIN filters need Meilisearch's containsFilter feature, which this deployment's Meilisearch has turned off", 'condition');
    }
    if (request.filter.kind !== 'all') {
      out.push(compileFilter(request.filter, new Map([...request.fields].map(([name, field]) => [name, targetOf(field)]))));
    }
    return out;
  }

  /**
   * Each index returns its first `count` hits after the cursor, merged in key order.
   * Counts come from a facet on `_type`, which Meilisearch computes exactly
   * (estimatedTotalHits stops at maxTotalHits); a later page asks for them without the cursor.
   */
  private async keysetPage(request: SearchRequest, filter: string[], count: number, cursor: (ScrollCursor & { order: 'asc' | 'desc' }) | null, order: 'asc' | 'desc'): Promise<Page> {
    const { types } = request;
    const q = request.keywords ?? '';
    const queries: EngineQuery[] = types.map((type) => ({
      type,
      q,
      filter: cursor ? [...filter, afterCursorFilter(cursor)] : filter,
      limit: count,
      sort: [`_k:${order}`],
      facets: ['_type'],
    }));
    if (cursor) for (const type of types) queries.push({ type, q, filter, limit: 0, facets: ['_type'] });
    const { results, engineRequests } = await this.run(queries);
    const pages = results.slice(0, types.length);
    const remaining = pages.reduce((n, r) => n + countOfType(r), 0);
    const total = cursor ? results.slice(types.length).reduce((n, r) => n + countOfType(r), 0) : remaining;
    const hits = pages
      .flatMap((r) => r.hits)
      .sort((a, b) => compareKeys(a, b) * (order === 'asc' ? 1 : -1))
      .slice(0, count);
    const last = hits[hits.length - 1];
    const next = last && remaining > hits.length ? encodeCursor({ order, after: last._k }) : null;
    return { hits: hits.map(hitOf), total, nextScrollId: next, engineRequests };
  }

  /**
   * Keyword hits by relevance: each index ranks its first `offset + count` (no sort, so
   * the relevance rules decide), merged by ranking score (same settings everywhere, so
   * scores compare), ties by URN.
   */
  private rankedPage(request: SearchRequest, filter: string[], count: number, offset: number): Promise<Page> {
    return this.positionPage(request, filter, count, offset, { ranked: true }, (a, b) => (b._rankingScore ?? 0) - (a._rankingScore ?? 0), (reached) => ({ order: 'relevance', offset: reached }));
  }

  /**
   * Hits in the order of a sort key (a time, the name), ties by URN: each index sorts
   * its first `offset + count`, merged in the same order. Documents without the key (a
   * schema field has no times) come last, as Meilisearch puts them.
   */
  private sortedPage(request: SearchRequest, filter: string[], count: number, offset: number, by: SortAttribute, direction: 'asc' | 'desc'): Promise<Page> {
    return this.positionPage(request, filter, count, offset, { sort: [`${by}:${direction}`, '_k:asc'] }, (a, b) => compareSortKeys(a[by], b[by], direction), (reached) => ({ order: 'sorted', by, direction, offset: reached }));
  }

  /**
   * A page by position through the first MAX_RANKED_HITS hits: each index orders its
   * first `offset + count` (as `ordering` asks), the pages are merged by `compare` (ties
   * by URN), and the cursor of the next page is `cursorAt` the position reached.
   */
  private async positionPage(
    request: SearchRequest,
    filter: string[],
    count: number,
    offset: number,
    ordering: Pick<EngineQuery, 'ranked' | 'sort'>,
    compare: (a: EngineHit, b: EngineHit) => number,
    cursorAt: (reached: number) => ScrollCursor,
  ): Promise<Page> {
    const limit = Math.max(0, Math.min(count, MAX_RANKED_HITS - offset));
    const { results, engineRequests } = await this.run(request.types.map((type) => ({ type, q: request.keywords ?? '', filter, limit: offset + limit, facets: ['_type'], ...ordering })));
    const total = results.reduce((n, r) => n + countOfType(r), 0);
    const hits = results
      .flatMap((r) => r.hits)
      .sort((a, b) => compare(a, b) || compareKeys(a, b))
      .slice(offset, offset + limit);
    const reached = offset + hits.length;
    const next = hits.length > 0 && reached < Math.min(total, MAX_RANKED_HITS) ? encodeCursor(cursorAt(reached)) : null;
    return { hits: hits.map(hitOf), total, nextScrollId: next, engineRequests };
  }

  /** The engine's results, and the request that answered (a first one refused for a missing index is not counted). */
  private async run(queries: EngineQuery[]): Promise<{ results: EngineResult[]; engineRequests: EngineRequest[] }> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { results, request } = await this.engine.search(queries);
        return { results, engineRequests: request ? [request] : [] };
      } catch (err) {
        if (err instanceof SearchRequestError && err.code === 'index_not_found' && attempt === 1) {
          // A new deployment (or a dropped index): create the indexes, then they are just empty.
          await this.engine.ensureIndexes(searchableEntityTypes().map((t) => t.name)).catch(() => undefined);
          continue;
        }
        throw searchError(err);
      }
    }
  }
}

/** Whether the filter has a CONTAIN condition (which Meilisearch runs only with its containsFilter feature on). */
function usesContains(node: FilterNode): boolean {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.items.some(usesContains);
    case 'not':
      return usesContains(node.item);
    case 'text':
      return node.op === 'contains';
    default:
      return false;
  }
}

function countOfType(r: EngineResult): number {
  return r.facets._type?.[r.type] ?? 0;
}

/** Two sort key values in the direction asked; a missing one after any present one, either way. */
function compareSortKeys(a: string | number | undefined, b: string | number | undefined, direction: 'asc' | 'desc'): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  const ascending = a < b ? -1 : a > b ? 1 : 0;
  return direction === 'asc' ? ascending : -ascending;
}

function compareKeys(a: EngineHit, b: EngineHit): number {
  return a._k < b._k ? -1 : a._k > b._k ? 1 : 0;
}

function hitOf(h: EngineHit): { urn: string; type: string } {
  return { urn: h.urn, type: h._type };
}

function facetValues(results: readonly EngineResult[], target: FieldTarget, limit: number): FacetValue[] {
  const counts = new Map<string, number>();
  for (const r of results) {
    for (const [raw, n] of Object.entries(r.facets[target.attr] ?? {})) {
      const value = target.valueKind === 'number' ? formatDouble(Number(raw)) : raw;
      counts.set(value, (counts.get(value) ?? 0) + n);
    }
  }
  return [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, limit);
}

/** Engine failures as the domain's errors: unreachable is 503, a refused filter is 400. */
function searchError(err: unknown): Error {
  if (err instanceof SearchUnavailableError) return new UnavailableError('The search engine is not reachable right now; retry later');
  if (err instanceof SearchRequestError && err.code === 'invalid_search_filter') {
    return new ValidationError(`The search engine rejected the filter: ${err.message}`, 'query');
  }
  return err instanceof Error ? err : new Error(String(err));
}
