/**
 * Which entities a bulk edit goes through, chunk by chunk, and what it does with an
 * entity changed after the selection was fixed (docs/contract.md §15, issue #39).
 *
 * - Named entities (`urns`): the selection is fixed when the request is accepted. An
 *   entity written by anyone since is still edited, on its values as they are at its
 *   turn, and counted as changed since the selection.
 * - A search (`query`, `orFilters`): the query is kept, not its hits, and resolved page
 *   by page as the job runs, in URN order (a page goes on after the last URN, so an
 *   entity the edit takes out of the query is not skipped past). Each page fixes the
 *   selection of its entities at the moment it is read. An entity of the page that the
 *   index had not caught up with then (a write to it not yet indexed) is asked again once
 *   the index has its writes: when it no longer matches the query, it is skipped and
 *   reported as changed since the selection; when it still does, it is edited on its
 *   values as they are at its turn and counted as changed since the selection.
 *
 * A search is run as the edit's author (`reader`): what the policies do not let them read
 * is not selected, counted or named (docs/security.md, "Policies").
 */
import { type AndFilter, type FacetFilter } from '../../domain/searchFilter.js';
import { LIMITS } from '../../domain/limits.js';
import { ValidationError } from '../../domain/errors.js';
import type { Db } from '../../store/database.js';
import { changesUnindexedAt, databaseNow, entitiesChangedSince, entitiesPendingUpTo } from '../../store/changeLog.js';
import type { Caller } from '../caller.js';
import type { IndexWaiter } from '../indexWaiter.js';
import type { SearchService } from '../searchService.js';

/** The selection as a job keeps it. */
export type BulkSelection =
  | { readonly urns: readonly string[]; /** ISO time by the database clock. */ readonly selectedAt: string }
  | { readonly query: string; readonly types: readonly string[]; readonly orFilters: readonly AndFilter[] | null };

export interface SkippedEntity {
  readonly urn: string;
  readonly reason: string;
}

export interface SelectedChunk {
  /** The entities to edit now. */
  readonly urns: string[];
  /** Entities changed since the selection that no longer belong to it. */
  readonly skipped: SkippedEntity[];
  /** Of `urns`, those changed since the selection (edited on their values as they are now). */
  readonly changedSinceSelection: number;
  /** Where the next chunk starts; null: this was the last. */
  readonly next: string | null;
}

export interface SelectionDeps {
  readonly db: Db;
  /** Null when search is disabled: a selection by query then fails with the reason. */
  readonly search: SearchService | null;
  readonly indexWaiter: IndexWaiter;
}

/** URN order, so that a page goes on after the last URN seen whatever the edit did to the entities before it. */
const URN_ORDER = [{ field: 'urn', sortOrder: 'ASCENDING' }];

export const NO_LONGER_MATCHES = 'changed since the selection: it no longer matches the query, so it was left as it is';
export const INDEX_BEHIND = 'changed since the selection, and the search index has not caught up with the change to say whether it still matches the query; it was left as it is (run the edit again to include it)';

/** How many entities the selection holds now (a search's total, or the URNs named). */
export async function selectionSize(deps: SelectionDeps, selection: BulkSelection, reader: Caller): Promise<number> {
  if ('urns' in selection) return selection.urns.length;
  const page = await searchOf(deps).scroll(reader, { types: [...selection.types], query: selection.query, orFilters: selection.orFilters ? [...selection.orFilters] : null, count: 0 });
  return page.total;
}

/** The chunk starting at `from` (null: the first), at most `size` entities. */
export async function selectChunk(deps: SelectionDeps, selection: BulkSelection, from: string | null, size: number, reader: Caller): Promise<SelectedChunk> {
  if ('urns' in selection) {
    const start = from === null ? 0 : Number(from);
    const urns = selection.urns.slice(start, start + size);
    const changed = await entitiesChangedSince(deps.db, urns, new Date(selection.selectedAt));
    const end = start + urns.length;
    return { urns, skipped: [], changedSinceSelection: changed.size, next: end < selection.urns.length ? String(end) : null };
  }
  const search = searchOf(deps);
  const readAt = await databaseNow(deps.db);
  const page = await search.scroll(reader, { ...searchInput(selection), count: size, scrollId: from, sort: URN_ORDER });
  const urns = page.entities.map((e) => e.urn);
  const behind = await changesUnindexedAt(deps.db, urns, readAt);
  const skipped: SkippedEntity[] = [];
  if (behind.size > 0) {
    const indexed = await deps.indexWaiter.waitFor([...behind.values()].flat());
    const upTo = [...behind.values()].flat().reduce((a, b) => (a > b ? a : b));
    const stillBehind = indexed === 'indexed' ? new Set<string>() : await entitiesPendingUpTo(deps.db, [...behind.keys()], upTo);
    const asked = [...behind.keys()].filter((u) => !stillBehind.has(u));
    const matching = await matchingAmong(search, selection, asked, reader);
    for (const urn of behind.keys()) {
      if (stillBehind.has(urn)) skipped.push({ urn, reason: INDEX_BEHIND });
      else if (!matching.has(urn)) skipped.push({ urn, reason: NO_LONGER_MATCHES });
    }
  }
  const left = new Set(skipped.map((s) => s.urn));
  return {
    urns: urns.filter((u) => !left.has(u)),
    skipped,
    changedSinceSelection: behind.size - skipped.length,
    next: page.nextScrollId && urns.length > 0 ? page.nextScrollId : null,
  };
}

/** Every URN of the selection, at most LIMITS.bulkEditEntities (more is refused naming the field): a dry run's. */
export async function allSelected(deps: SelectionDeps, selection: BulkSelection, field: string, reader: Caller): Promise<string[]> {
  if ('urns' in selection) return [...selection.urns];
  const urns: string[] = [];
  let from: string | null = null;
  do {
    const page = await searchOf(deps).scroll(reader, { ...searchInput(selection), count: 1000, scrollId: from, sort: URN_ORDER });
    if (page.total > LIMITS.bulkEditEntities) throw tooMany(page.total, field);
    urns.push(...page.entities.map((e) => e.urn));
    from = page.entities.length > 0 ? page.nextScrollId : null;
  } while (from);
  return [...new Set(urns)];
}

export function tooMany(total: number, field: string): ValidationError {
  return new ValidationError(`The ${field === 'urns' ? 'urns name' : 'query selects'} ${total} entities; a bulk edit may change at most ${LIMITS.bulkEditEntities}: narrow the selection (or split it)`, field);
}

function searchInput(selection: Extract<BulkSelection, { query: string }>) {
  return { types: [...selection.types], query: selection.query, orFilters: selection.orFilters ? [...selection.orFilters] : null };
}

/** Those of `urns` the selection's search matches now. */
async function matchingAmong(search: SearchService, selection: Extract<BulkSelection, { query: string }>, urns: readonly string[], reader: Caller): Promise<Set<string>> {
  if (urns.length === 0) return new Set();
  const only: FacetFilter = { field: 'urn', values: [...urns] };
  const orFilters: AndFilter[] = selection.orFilters?.length ? selection.orFilters.map((f) => ({ and: [...(f.and ?? []), only] })) : [{ and: [only] }];
  const page = await search.scroll(reader, { types: [...selection.types], query: selection.query, orFilters, count: urns.length });
  return new Set(page.entities.map((e) => e.urn));
}

function searchOf(deps: SelectionDeps): SearchService {
  if (!deps.search?.enabled) throw new ValidationError('A bulk edit over a query needs search, which this server does not have; name the entities (urns) instead', 'query');
  return deps.search;
}
