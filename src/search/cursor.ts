/**
 * Scroll cursors. Ordered by URN, a cursor is a keyset position: Meilisearch's
 * maxTotalHits caps offset paging, so a scroll sorts by the sort key `_k` and
 * continues after the last key returned, reaching every hit whatever the size of the
 * result. Ranked by relevance (keyword searches), it is a position among the ranked
 * hits, which Meilisearch ranks only up to MAX_RANKED_HITS deep.
 */
import { ValidationError } from '../domain/errors.js';
import { SORT_ATTRIBUTES, type SortAttribute } from './request.js';

export type ScrollCursor =
  | { readonly order: 'asc' | 'desc'; /** The `_k` of the last hit returned. */ readonly after: string }
  | { readonly order: 'relevance'; readonly offset: number }
  /** A sort on another attribute (a time, the name) is paged by position, as relevance is. */
  | { readonly order: 'sorted'; readonly by: SortAttribute; readonly direction: 'asc' | 'desc'; readonly offset: number }
  /** A sort on a property's value (services/searchOrder.ts), paged by position. */
  | { readonly order: 'byValue'; readonly direction: 'asc' | 'desc'; readonly offset: number };

export function encodeCursor(cursor: ScrollCursor): string {
  const text =
    cursor.order === 'relevance'
      ? `r:${cursor.offset}`
      : cursor.order === 'sorted'
        ? `s:${cursor.by}:${cursor.direction === 'asc' ? 'a' : 'd'}:${cursor.offset}`
        : cursor.order === 'byValue'
          ? `v:${cursor.direction === 'asc' ? 'a' : 'd'}:${cursor.offset}`
          : `${cursor.order === 'asc' ? 'a' : 'd'}:${cursor.after}`;
  return Buffer.from(text, 'utf8').toString('base64url');
}

export function decodeCursor(scrollId: string): ScrollCursor {
  const text = /^[A-Za-z0-9_-]{1,1000}$/.test(scrollId) ? Buffer.from(scrollId, 'base64url').toString('utf8') : '';
  const ranked = /^r:(\d{1,9})$/.exec(text);
  if (ranked) return { order: 'relevance', offset: Number(ranked[1]) };
  const sorted = /^s:(_[a-z]{2}):([ad]):(\d{1,9})$/.exec(text);
  if (sorted && (SORT_ATTRIBUTES as readonly string[]).includes(sorted[1]!)) {
    return { order: 'sorted', by: sorted[1] as SortAttribute, direction: sorted[2] === 'a' ? 'asc' : 'desc', offset: Number(sorted[3]) };
  }
  const byValue = /^v:([ad]):(\d{1,9})$/.exec(text);
  if (byValue) return { order: 'byValue', direction: byValue[1] === 'a' ? 'asc' : 'desc', offset: Number(byValue[2]) };
  const m = /^([ad]):([0-9a-f]{1,500})$/.exec(text);
  if (!m) throw new ValidationError('scrollId is not a valid cursor', 'scrollId');
  return { order: m[1] === 'a' ? 'asc' : 'desc', after: m[2]! };
}

/** The filter condition that continues a keyset scroll after `cursor`. */
export function afterCursorFilter(cursor: ScrollCursor & { order: 'asc' | 'desc' }): string {
  return `_k ${cursor.order === 'asc' ? '>' : '<'} "${cursor.after}"`;
}
