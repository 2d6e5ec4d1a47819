/**
 * The search's results: a page of 20 at a time as the list scrolls (and a Load more button
 * for the keyboard), in the order the address asks, each with its values (those of every
 * property filtered on first). With the right to edit values, results can be ticked one
 * by one, all shown, or all matching: the last selects the search itself, not the rows
 * loaded, so no page has to be loaded to edit them all (issue #41).
 */
import { useEffect, useRef, useState } from 'react';
import { LIMITS } from '../../domain/limits.js';
import { SearchEntitiesDocument, type SearchEntitiesQuery, type SearchSortInput } from '../generated/graphql';
import { request } from '../lib/api';
import { counted, entityTypeLabel, valueText } from '../lib/properties';
import { usePropertyLabel } from '../lib/propertyNames';
import { resultValues } from '../lib/resultValues';
import { entityPath, Link, propertyPath } from '../lib/router';
import type { orOf } from '../lib/searchState';
import { ValueText } from './ValueEditor';

const PAGE = 20;
/** Values a result shows; the entity's page has them all. */
const VALUES_SHOWN = 4;

type Hit = NonNullable<SearchEntitiesQuery['scrollAcrossEntities']>['searchResults'][number]['entity'];

/** What is ticked: results one by one, or every result the search matches. */
export type Ticked = { readonly kind: 'urns'; readonly urns: ReadonlySet<string> } | { readonly kind: 'matching'; readonly count: number };

export const NOTHING_TICKED: Ticked = { kind: 'urns', urns: new Set() };

interface ResultsProps {
  readonly query: string;
  /** The properties the search filters on (qualified names): their values are shown first on every result. */
  readonly filtered: readonly string[];
  readonly orFilters: ReturnType<typeof orOf>;
  readonly sortInput: SearchSortInput | null;
  /** The search's failure (null once a page comes), as the API told it. */
  onError(err: unknown): void;
  readonly selectable: boolean;
  readonly ticked: Ticked;
  onTick(next: Ticked): void;
}

export function Results({ query, orFilters, filtered, sortInput, onError, selectable, ticked, onTick }: ResultsProps) {
  const [hits, setHits] = useState<Hit[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [next, setNext] = useState<string | null | undefined>(undefined);
  const [failed, setFailed] = useState(false);
  const [loading, setLoading] = useState(false);
  const sentinel = useRef<HTMLDivElement>(null);
  const loadingRef = useRef(false);

  const loadMore = async (scrollId: string | null) => {
    if (loadingRef.current) return;
    loadingRef.current = true;
    setLoading(true);
    try {
      const page = (await request(SearchEntitiesDocument, { input: { query, orFilters, count: PAGE, scrollId, ...(sortInput ? { sortInput } : {}) } })).scrollAcrossEntities;
      setHits((h) => [...h, ...(page?.searchResults.map((r) => r.entity) ?? [])]);
      setTotal(page?.total ?? 0);
      setNext(page?.nextScrollId ?? null);
      onError(null);
    } catch (err) {
      setFailed(true);
      setNext(null);
      onError(err);
    } finally {
      loadingRef.current = false;
      setLoading(false);
    }
  };

  useEffect(() => {
    void loadMore(null);
  }, []);

  useEffect(() => {
    const target = sentinel.current;
    if (!target || !next) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void loadMore(next);
    });
    observer.observe(target);
    return () => observer.disconnect();
  }, [next]);

  const matching = ticked.kind === 'matching';
  const urns = ticked.kind === 'urns' ? ticked.urns : new Set<string>();
  const toggle = (urn: string, on: boolean) => {
    const set = new Set(urns);
    if (on) set.add(urn);
    else set.delete(urn);
    onTick({ kind: 'urns', urns: set });
  };
  const allShown = matching || (hits.length > 0 && hits.every((h) => urns.has(h.urn)));
  // A sorted search orders its first matches only (docs/search.md, "Sorts"): the list ends there, and says so.
  const sortedPart = sortInput && total !== null && next === null && !failed && hits.length < total ? hits.length : null;
  const limit = LIMITS.bulkEditEntities;

  return (
    <section className="results" aria-labelledby="results-title">
      <h2 id="results-title">Results</h2>
      <p role="status" className="result-count">
        {failed ? 'No results: the search failed.' : total === null ? 'Searching…' : `${total} ${total === 1 ? 'result' : 'results'}${hits.length < total ? `, ${hits.length} shown` : ''}`}
      </p>
      {selectable && hits.length > 0 && total !== null && (
        <div className="select-all">
          <label className="inline">
            <input type="checkbox" checked={allShown} disabled={matching} onChange={(e) => onTick({ kind: 'urns', urns: e.target.checked ? new Set([...urns, ...hits.map((h) => h.urn)]) : new Set() })} /> Select all shown (
            {matching ? total : urns.size} selected)
          </label>
          {matching ? (
            <button type="button" className="secondary" onClick={() => onTick(NOTHING_TICKED)}>
              Clear the selection
            </button>
          ) : (
            <button type="button" className="secondary" disabled={total > limit} aria-describedby="select-matching-limit" onClick={() => onTick({ kind: 'matching', count: total })}>
              Select all {total} matching
            </button>
          )}
          <p id="select-matching-limit" className="hint">
            {matching
              ? `All ${counted(total, 'matching result is', 'matching results are')} selected: the bulk edit applies to the search itself, not only to the ${hits.length} loaded.`
              : total > limit
                ? `A bulk edit takes at most ${limit.toLocaleString('en')} entities and this search matches ${total.toLocaleString('en')}: narrow it with keywords or filters, or edit it in parts.`
                : `A bulk edit takes at most ${limit.toLocaleString('en')} entities; a larger search is refused before anything changes.`}
          </p>
        </div>
      )}
      <ol className="result-list">
        {hits.map((e) => (
          <li key={e.urn}>
            <ResultItem entity={e} filtered={filtered} selectable={selectable} locked={matching} selected={matching || urns.has(e.urn)} onToggle={(on) => toggle(e.urn, on)} />
          </li>
        ))}
      </ol>
      {sortedPart !== null && (
        <p className="hint sorted-part">
          A sort orders the first {sortedPart.toLocaleString('en')} of the {total!.toLocaleString('en')} results; narrow the search with keywords or filters to see the others in order.
        </p>
      )}
      {next && (
        <div ref={sentinel} className="more">
          <button type="button" className="secondary" disabled={loading} onClick={() => void loadMore(next)}>
            {loading ? 'Loading…' : 'Load more results'}
          </button>
        </div>
      )}
    </section>
  );
}

interface ItemProps {
  readonly entity: Hit;
  readonly filtered: readonly string[];
  readonly selectable: boolean;
  /** Selected with every match: a single result cannot be left out. */
  readonly locked: boolean;
  readonly selected: boolean;
  onToggle(on: boolean): void;
}

function ResultItem({ entity: e, filtered, selectable, locked, selected, onToggle }: ItemProps) {
  const nameOf = usePropertyLabel();
  let title = e.urn;
  let detail = '';
  let href = entityPath(e.urn);
  if ('name' in e && e.name) {
    title = e.name;
    detail = `${e.platform.name} · ${e.origin}`;
  } else if ('fieldPath' in e && e.fieldPath) {
    title = e.fieldPath;
    detail = `field of ${'name' in e.parent ? e.parent.name : e.parent.urn}`;
  } else if ('definition' in e && e.definition) {
    title = e.definition.displayName || e.definition.qualifiedName;
    href = propertyPath(e.urn);
  }
  const held = 'structuredProperties' in e ? (e.structuredProperties?.properties ?? []) : [];
  const values = resultValues(held, filtered, VALUES_SHOWN);
  const id = `select-${e.urn.replace(/[^A-Za-z0-9]+/g, '-')}`;
  return (
    <article className="result">
      <h3>
        {selectable && <input id={id} type="checkbox" checked={selected} disabled={locked} onChange={(ev) => onToggle(ev.target.checked)} aria-label={`Select ${title}`} />} <Link href={href}>{title}</Link>
      </h3>
      <p>
        <span className="badge">{entityTypeLabel(e.type)}</span> {detail} <code className="urn">{e.urn}</code>
      </p>
      {held.length > 0 && (
        <dl className="result-values">
          {values.shown.map((p) => (
            <div key={p.structuredProperty.urn}>
              <dt className={p.filtered ? 'filtered' : undefined}>{nameOf(p.structuredProperty.definition)}</dt>
              <dd className={p.filtered ? 'filtered' : undefined}>
                {p.values.map((v, i) => (
                  <span key={i}>
                    {i > 0 && ', '}
                    <ValueText property={p.structuredProperty} value={valueText(v)} />
                  </span>
                ))}
              </dd>
            </div>
          ))}
        </dl>
      )}
      {values.more > 0 && <p className="hint">and {values.more} more on its page</p>}
    </article>
  );
}
