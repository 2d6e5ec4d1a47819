/**
 * How a search's hits are ordered (docs/search.md, "Sorting"): by URN (keyset) by default,
 * by relevance for keywords, by a time or the name (an engine sort), or by a structured
 * property's value (DataHub's sortCriteria on `structuredProperties.<name>`, REST's `sort`,
 * the CLI's `--sort`).
 *
 * A sort on a property's value: the engine finds
 * the matches; their values are read from the relational index of values (property_value,
 * the current generation only, as reads see them) and ordered by the domain's rule
 * (searchSort.ts orderByValue). Like relevance and the other sorts, it orders the first
 * MAX_RANKED_HITS matches: a search with more is refused with how to narrow it, rather
 * than answered in an order that is wrong past the first thousand.
 */
import { ValidationError } from '../domain/errors.js';
import { orderByValue, pageSortOf } from '../domain/searchSort.js';
import { decodeCursor, encodeCursor } from '../search/cursor.js';
import { SORT_ATTRIBUTE_OF, type Page, type PageRequest, type ScrollOrder, type SearchRequest, type SortAttribute } from '../search/request.js';
import type { Searcher } from '../search/searcher.js';
import { MAX_RANKED_HITS } from '../search/settings.js';
import type { Queryable } from '../store/database.js';
import { currentValuesOf } from '../store/propertyValues.js';

export interface ValueSort {
  /** The sort field as the caller named it. */
  readonly field: string;
  readonly propertyUrn: string;
  readonly generation: bigint;
  readonly direction: 'asc' | 'desc';
}

export async function valueSortedPage(searcher: Searcher, db: Queryable, request: SearchRequest, sort: ValueSort, count: number, scrollId: string | null): Promise<Page> {
  const cursor = scrollId ? decodeCursor(scrollId) : null;
  if (cursor && (cursor.order !== 'byValue' || cursor.direction !== sort.direction)) throw new ValidationError('scrollId belongs to a scroll in another order', 'scrollId');
  const offset = cursor?.order === 'byValue' ? cursor.offset : 0;
  const matches = await searcher.page(request, { count: MAX_RANKED_HITS, scrollId: null, order: 'asc' });
  if (matches.total > MAX_RANKED_HITS) {
    throw new ValidationError(
      `sorting on ${sort.field} orders at most the first ${MAX_RANKED_HITS} matches, and this search has ${matches.total}; narrow it with a query or filters, or sort on createdTime, lastModified or name`,
      'sort',
    );
  }
  const values = await currentValuesOf(db, sort.propertyUrn, sort.generation, matches.hits.map((h) => h.urn));
  const ordered = orderByValue(matches.hits, values, sort.direction);
  const hits = ordered.slice(offset, offset + count);
  const reached = offset + hits.length;
  return { hits, total: matches.total, nextScrollId: reached < ordered.length ? encodeCursor({ order: 'byValue', direction: sort.direction, offset: reached }) : null, engineRequests: matches.engineRequests };
}

/** How a page is ordered: the URN by default (keyset), or a time or the name, or (`byValue`) a property's value. */
export interface PageOrder {
  readonly order: Exclude<ScrollOrder, 'relevance'>;
  readonly sortBy?: SortAttribute;
  /** The property search field whose values order the hits. */
  readonly byValue?: string;
}

export function pageOrderOf(field: string | undefined, sortOrder: string | undefined, name: string): PageOrder {
  const order = directionOf(sortOrder);
  if (field === undefined) return { order };
  const sort = pageSortOf(field, name);
  if ('property' in sort) return { order, byValue: sort.property };
  return sort.key === 'urn' ? { order } : { order, sortBy: SORT_ATTRIBUTE_OF[sort.key] };
}

/** A scroll's order: relevance (or URN order without keywords) unless sortCriteria name a field; the first decides. */
export function scrollOrderOf(sort: ReadonlyArray<{ field: string; sortOrder: string }> | undefined): Pick<PageRequest, 'order' | 'sortBy'> & { readonly byValue?: string } {
  const first = sort?.[0];
  if (!first) return { order: 'relevance' };
  return pageOrderOf(first.field, first.sortOrder, 'sortInput.sortCriteria[0].field');
}

function directionOf(sortOrder: string | undefined): Exclude<ScrollOrder, 'relevance'> {
  if (sortOrder === undefined || /^asc(ending)?$/i.test(sortOrder)) return 'asc';
  if (/^desc(ending)?$/i.test(sortOrder)) return 'desc';
  throw new ValidationError(`sortOrder must be ASCENDING or DESCENDING, got ${sortOrder}`, 'sortOrder');
}
