/**
 * Listing the entities of one type from the database, in URN order, a page at a time
 * (a scroll of a type search does not index, or with no search engine). The scroll id
 * is an opaque cursor, the last URN returned; the compliance report pages its
 * entities with the same cursor.
 */
import type { EntityTypeInfo } from '../domain/registry/entityTypes.js';
import { ValidationError } from '../domain/errors.js';
import { textViolation } from '../domain/inputLimits.js';
import { parseUrn } from '../domain/urn.js';
import { listLiveEntityUrns } from '../store/aspects.js';
import { readEntityViews, type ViewReads } from './entityReads.js';
import type { EntityView } from './entityView.js';

/** A page of the type's entities as readers see them, and the scroll id of the next (null when there is nothing more). */
export async function listEntityPage(
  deps: ViewReads,
  entityType: EntityTypeInfo,
  options: { count: number; scrollId?: string; aspects?: readonly string[] },
): Promise<{ scrollId: string | null; entities: EntityView[] }> {
  const after = options.scrollId ? decodeScrollId(options.scrollId) : null;
  // Soft-deleted entities are not listed, as searches do not show them (one rule for REST and GraphQL listings).
  const urns = await listLiveEntityUrns(deps.db, entityType.name, after, options.count + 1);
  const page = urns.slice(0, options.count);
  const views = await readEntityViews(deps, page.map((u) => parseUrn(u)), options.aspects);
  const entities = page.map((u) => views.get(u)).filter((v): v is EntityView => v !== undefined);
  return { scrollId: urns.length > options.count ? encodeScrollId(page[page.length - 1]!) : null, entities };
}

export function encodeScrollId(lastUrn: string): string {
  return Buffer.from(lastUrn, 'utf8').toString('base64url');
}

export function decodeScrollId(scrollId: string): string {
  const urn = Buffer.from(scrollId, 'base64url').toString('utf8');
  // What it decodes to is input too (docs/contract.md §12): U+0000 would reach the database.
  if (!urn.startsWith('urn:li:') || textViolation(urn)) {
    throw new ValidationError('scrollId is not a valid cursor; pass the scrollId of the previous page unchanged', 'scrollId');
  }
  return urn;
}
