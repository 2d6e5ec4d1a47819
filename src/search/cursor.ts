/**
 * Scroll cursors: keyset positions, not offsets. Meilisearch's maxTotalHits caps offset
 * paging (1,000 by default), so a scroll sorts by the sort key `_k` and continues after
 * the last key returned; it reaches every hit whatever the size of the result.
 */
import { ValidationError } from '../domain/errors.js';

export type SortDirection = 'asc' | 'desc';

export interface ScrollCursor {
  readonly direction: SortDirection;
  /** The `_k` of the last hit returned. */
  readonly after: string;
}

export function encodeCursor(cursor: ScrollCursor): string {
  return Buffer.from(`${cursor.direction === 'asc' ? 'a' : 'd'}:${cursor.after}`, 'utf8').toString('base64url');
}

export function decodeCursor(scrollId: string): ScrollCursor {
  const text = /^[A-Za-z0-9_-]{1,1000}$/.test(scrollId) ? Buffer.from(scrollId, 'base64url').toString('utf8') : '';
  const m = /^([ad]):([0-9a-f]{1,500})$/.exec(text);
  if (!m) throw new ValidationError('scrollId is not a valid cursor', 'scrollId');
  return { direction: m[1] === 'a' ? 'asc' : 'desc', after: m[2]! };
}

/** The filter condition that continues a scroll after `cursor`. */
export function afterCursorFilter(cursor: ScrollCursor): string {
  return `_k ${cursor.direction === 'asc' ? '>' : '<'} "${cursor.after}"`;
}
