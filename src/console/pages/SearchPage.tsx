/**
 * Search across entities: keywords, a facet sidebar with counts (entity type,
 * platform, every property shown in search filters) and filters per property; the
 * results, with their values, page in by scrolling. The address bar holds the whole
 * search. Values ticked in one facet are alternatives and facets combine: a facet's
 * counts leave out its own ticks, so its other values stay there to tick. A link that
 * filters on a property that is soft deleted or gone is said once, and the search runs
 * without that filter. Results can be ticked for a bulk edit.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { BulkEditPanel } from '../components/BulkEditPanel';
import { ErrorMessage, Loading } from '../components/Messages';
import { PropertyFacet, KeyFacet } from '../components/Facets';
import { ValueText } from '../components/ValueEditor';
import { PropertyStatusDocument, SearchEntitiesDocument, SearchFacetsDocument, type SearchEntitiesQuery, type SearchFacetsQuery } from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { entityTypeLabel, valueText } from '../lib/properties';
import { usePropertyLabel } from '../lib/propertyNames';
import { entityPath, Link, navigate, propertyPath } from '../lib/router';
import type { Me } from '../lib/session';
import { resultValues } from '../lib/resultValues';
import { facetFieldOf, filtersOf, orOf, propertiesNamed, searchUrl, withoutProperties } from '../lib/searchState';

const PAGE = 20;
/** Values a result shows; the entity's page has them all. */
const VALUES_SHOWN = 4;

type Facet = NonNullable<NonNullable<SearchFacetsQuery['aggregateAcrossEntities']>['facets']>[number];
type Hit = NonNullable<SearchEntitiesQuery['scrollAcrossEntities']>['searchResults'][number]['entity'];

/** Properties a shared link names that cannot be filtered on: soft deleted, or gone. */
function useUnusableProperties(params: URLSearchParams): { checked: boolean; unusable: Array<{ name: string; why: string }> } {
  const names = propertiesNamed(params).sort();
  const key = names.join('\n');
  const [state, setState] = useState<{ key: string; unusable: Array<{ name: string; why: string }> } | null>(null);
  useEffect(() => {
    let stopped = false;
    void Promise.all(
      names.map(async (name) => {
        // A lookup that fails (the server away) decides nothing: the search itself will say what is wrong.
        const answer = await request(PropertyStatusDocument, { urn: `urn:li:structuredProperty:${name}` }).catch(() => undefined);
        if (answer === undefined) return null;
        const found = answer.structuredProperty;
        if (!found) return { name, why: 'does not exist (it may have been deleted)' };
        return found.status?.removed ? { name, why: 'is soft deleted' } : null;
      }),
    ).then((list) => {
      if (!stopped) setState({ key, unusable: list.filter((x): x is { name: string; why: string } => x !== null) });
    });
    return () => {
      stopped = true;
    };
  }, [key]);
  return state?.key === key ? { checked: true, unusable: state.unusable } : { checked: false, unusable: [] };
}

/** Facet counts, each facet with a ticked value counted without its own ticks. */
function useFacets(query: string, params: URLSearchParams, enabled: boolean): { facets: Facet[] | null; error: string | null } {
  const key = `${query}\n${params.toString()}`;
  const [state, setState] = useState<{ key: string; facets: Facet[] | null; error: string | null } | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    const ticked = [...new Set([...params.keys()].filter((k) => facetFieldOf(k) !== null))];
    const all = request(SearchFacetsDocument, { input: { query, orFilters: orOf(filtersOf(params)), searchFlags: { maxAggValues: 50 } } });
    const own = ticked.map((k) =>
      request(SearchFacetsDocument, { input: { query, facets: [facetFieldOf(k)!], orFilters: orOf(filtersOf(params, k)), searchFlags: { maxAggValues: 50 } } }),
    );
    Promise.all([all, ...own]).then(
      ([base, ...others]) => {
        const byField = new Map(others.flatMap((o) => o.aggregateAcrossEntities?.facets ?? []).map((f) => [f.field, f]));
        const facets = (base!.aggregateAcrossEntities?.facets ?? []).map((f) => (byField.has(f.field) ? { ...f, aggregations: byField.get(f.field)!.aggregations } : f));
        if (!stopped) setState({ key, facets, error: null });
      },
      (err: unknown) => !stopped && setState({ key, facets: null, error: messageOf(err) }),
    );
    return () => {
      stopped = true;
    };
  }, [key, enabled]);
  return state?.key === key ? state : { facets: null, error: null };
}


export function SearchPage({ me, params }: { me: Me; params: URLSearchParams }) {
  const q = params.get('q') ?? '';
  const [words, setWords] = useState(q);
  useEffect(() => setWords(q), [q]);
  const { checked, unusable } = useUnusableProperties(params);
  const usable = withoutProperties(params, unusable.map((u) => u.name));
  const query = q.trim() || '*';
  const facets = useFacets(query, usable, checked);
  const [resultsError, setResultsError] = useState<string | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [reloads, setReloads] = useState(0);
  useEffect(() => setSelected(new Set()), [params.toString()]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams(params);
    if (words.trim()) next.set('q', words.trim());
    else next.delete('q');
    navigate(searchUrl(next));
  };
  const go = (next: URLSearchParams) => navigate(searchUrl(next));
  // One message for what failed, whichever part of the page met it first.
  const error = resultsError ?? facets.error;

  return (
    <>
      <h1>Search</h1>
      <form className="search-box" role="search" aria-label="Entities" onSubmit={submit}>
        <label htmlFor="search-q">Keywords</label>
        <input id="search-q" type="search" value={words} onChange={(e) => setWords(e.target.value)} placeholder="name, description or urn" />
        <button type="submit">Search</button>
        {params.size > 0 && (
          <button type="button" className="secondary" onClick={() => navigate('/search')}>
            Clear search
          </button>
        )}
        <Link className="button secondary" href={`/csv${usable.size ? `?${usable}` : ''}`}>
          Export these results as CSV
        </Link>
      </form>
      {unusable.length > 0 && (
        <div className="message message-error" role="alert">
          <p>
            This search filters on {unusable.map((u) => `${u.name}, which ${u.why}`).join('; ')}. The results below leave that filter out.
          </p>
          <button type="button" className="secondary" onClick={() => navigate(searchUrl(usable), { replace: true })}>
            Remove it from the address
          </button>
        </div>
      )}
      {error && <ErrorMessage title="The search failed.">{error}</ErrorMessage>}
      {me.platformPrivileges.editStructuredPropertyValues && selected.size > 0 && <BulkEditPanel selection={{ urns: [...selected] }} onDone={() => setReloads((n) => n + 1)} />}
      <div className="search-layout">
        <aside aria-label="Filters" className="facets">
          <h2>Filters</h2>
          {!facets.facets && !facets.error && <Loading what="filters" />}
          {facets.facets?.map((facet) =>
            facet.entity && 'definition' in facet.entity ? (
              <PropertyFacet key={facet.field} facet={facet} definition={facet.entity.definition} params={usable} onChange={go} />
            ) : (
              <KeyFacet key={facet.field} facet={facet} params={usable} onChange={go} />
            ),
          )}
        </aside>
        {checked ? (
          <Results
            key={`${usable.toString()}#${reloads}`}
            query={query}
            orFilters={orOf(filtersOf(usable))}
            filtered={propertiesNamed(usable)}
            onError={setResultsError}
            selectable={me.platformPrivileges.editStructuredPropertyValues}
            selected={selected}
            onSelect={setSelected}
          />
        ) : (
          <section className="results">
            <Loading what="the search" />
          </section>
        )}
      </div>
    </>
  );
}

interface ResultsProps {
  readonly query: string;
  /** The properties the search filters on (qualified names): their values are shown first on every result. */
  readonly filtered: readonly string[];
  readonly orFilters: ReturnType<typeof orOf>;
  onError(message: string | null): void;
  readonly selectable: boolean;
  readonly selected: ReadonlySet<string>;
  onSelect(next: ReadonlySet<string>): void;
}

function Results({ query, orFilters, filtered, onError, selectable, selected, onSelect }: ResultsProps) {
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
      const page = (await request(SearchEntitiesDocument, { input: { query, orFilters, count: PAGE, scrollId } })).scrollAcrossEntities;
      setHits((h) => [...h, ...(page?.searchResults.map((r) => r.entity) ?? [])]);
      setTotal(page?.total ?? 0);
      setNext(page?.nextScrollId ?? null);
      onError(null);
    } catch (err) {
      setFailed(true);
      setNext(null);
      onError(messageOf(err));
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

  const toggle = (urn: string, on: boolean) => {
    const set = new Set(selected);
    if (on) set.add(urn);
    else set.delete(urn);
    onSelect(set);
  };
  const allShown = hits.length > 0 && hits.every((h) => selected.has(h.urn));

  return (
    <section className="results" aria-labelledby="results-title">
      <h2 id="results-title">Results</h2>
      <p role="status" className="result-count">
        {failed ? 'No results: the search failed.' : total === null ? 'Searching…' : `${total} ${total === 1 ? 'result' : 'results'}${hits.length < total ? `, ${hits.length} shown` : ''}`}
      </p>
      {selectable && hits.length > 0 && (
        <label className="inline select-all">
          <input type="checkbox" checked={allShown} onChange={(e) => onSelect(e.target.checked ? new Set([...selected, ...hits.map((h) => h.urn)]) : new Set())} /> Select all shown ({selected.size} selected)
        </label>
      )}
      <ol className="result-list">
        {hits.map((e) => (
          <li key={e.urn}>
            <ResultItem entity={e} filtered={filtered} selectable={selectable} selected={selected.has(e.urn)} onToggle={(on) => toggle(e.urn, on)} />
          </li>
        ))}
      </ol>
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

function ResultItem({ entity: e, filtered, selectable, selected, onToggle }: { entity: Hit; filtered: readonly string[]; selectable: boolean; selected: boolean; onToggle(on: boolean): void }) {
  const nameOf = usePropertyLabel();
  let title = e.urn;
  let detail = '';
  let href = entityPath(e.urn);
  if ('name' in e && e.name) {
    title = e.name;
    detail = `${e.platform.name} · ${e.origin}`;
  } else if ('fieldPath' in e && e.fieldPath) {
    title = e.fieldPath;
    detail = `field of ${e.parent.name}`;
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
        {selectable && <input id={id} type="checkbox" checked={selected} onChange={(ev) => onToggle(ev.target.checked)} aria-label={`Select ${title}`} />} <Link href={href}>{title}</Link>
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
