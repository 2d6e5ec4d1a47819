/**
 * Search across entities: keywords, a facet sidebar with counts (entity type,
 * platform, every property shown in search filters) and filters per property, a sort,
 * saved views; the results, with their values, page in by scrolling. The address bar
 * holds the whole search, its sort included. Values ticked in one facet are alternatives
 * and facets combine: a facet's counts leave out its own ticks, so its other values stay
 * there to tick. A link that filters on a property that is soft deleted or gone is said
 * once, and the search runs without that filter. Results can be ticked for a bulk edit,
 * or all of them that match selected at once.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { defaultSearchTypes } from '../../domain/registry/entityTypes.js';
import { BulkEditPanel, type Selection } from '../components/BulkEditPanel';
import { ErrorMessage, Loading } from '../components/Messages';
import { PropertyFacet, KeyFacet } from '../components/Facets';
import { SavedViews } from '../components/SavedViews';
import { NOTHING_TICKED, Results, type Ticked } from '../components/SearchResults';
import { SortControl } from '../components/SortControl';
import { PropertyStatusDocument, SearchFacetsDocument, type EntityType, type SearchFacetsQuery } from '../generated/graphql';
import { ApiError, messageOf, request } from '../lib/api';
import { usePropertyLabel, usePropertyNames } from '../lib/propertyNames';
import { Link, navigate } from '../lib/router';
import type { Me } from '../lib/session';
import { facetFieldOf, filtersOf, orOf, propertiesNamed, searchUrl, withoutProperties } from '../lib/searchState';
import { sortByOf, sortOf, withSort } from '../lib/sortParam';

type Facet = NonNullable<NonNullable<SearchFacetsQuery['aggregateAcrossEntities']>['facets']>[number];

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
function useFacets(query: string, params: URLSearchParams, enabled: boolean, generation: number): { facets: Facet[] | null; error: string | null } {
  const key = `${query}\n${params.toString()}\n${generation}`;
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
  // What the search selects, without its order: the facets and the CSV export need no sort.
  const selecting = withSort(usable, null);
  const sort = sortOf(usable.get('sort'));
  const query = q.trim() || '*';
  const orFilters = orOf(filtersOf(usable));

  const [resultsError, setResultsError] = useState<unknown>(null);
  const [ticked, setTicked] = useState<Ticked>(NOTHING_TICKED);
  // The last bulk edit's selection, kept after the edit so its outcome stays in view while the list reloads.
  const [edited, setEdited] = useState<Selection | null>(null);
  const [reloads, setReloads] = useState(0);
  const facets = useFacets(query, selecting, checked, reloads);
  useEffect(() => {
    setTicked(NOTHING_TICKED);
    setEdited(null);
  }, [params.toString()]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams(params);
    if (words.trim()) next.set('q', words.trim());
    else next.delete('q');
    navigate(searchUrl(next));
  };
  const go = (next: URLSearchParams) => navigate(searchUrl(next));
  const typesTicked = usable.getAll('type') as EntityType[];
  // All matching: the search itself, over the types this page searches (those ticked, else the default ones).
  const selection: Selection | null =
    ticked.kind === 'matching'
      ? { query, orFilters, types: typesTicked.length ? typesTicked : defaultSearchTypes().map((t) => t.graphql as EntityType), count: ticked.count, what: `all ${ticked.count} results matching this search` }
      : ticked.urns.size > 0
        ? { urns: [...ticked.urns] }
        : null;
  const afterEdit = () => {
    setEdited(selection);
    setTicked(NOTHING_TICKED);
    setReloads((n) => n + 1);
  };
  const panel = selection ?? edited;
  // The values a result shows first: those of every property filtered on, and the one the results are sorted by.
  const sortedBy = sort ? sortByOf(sort) : null;
  const shownFirst = [...new Set([...propertiesNamed(usable), ...(sortedBy?.kind === 'property' ? [sortedBy.qualifiedName] : [])])];

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
        <Link className="button secondary" href={`/csv${selecting.size ? `?${selecting}` : ''}`}>
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
      <SearchError error={resultsError ?? facets.error} sorted={sort !== null} params={usable} onChange={go} />
      {me.platformPrivileges.bulkEditStructuredPropertyValues && panel && <BulkEditPanel selection={panel} onDone={afterEdit} />}
      <div className="search-layout">
        <div className="sidebar">
          <SavedViews me={me} params={usable} />
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
        </div>
        <div>
          <SortControl params={usable} onChange={go} />
          {checked ? (
            <Results
              key={`${usable.toString()}#${reloads}`}
              query={query}
              orFilters={orFilters}
              sortInput={sort ? { sortCriteria: [sort] } : null}
              filtered={shownFirst}
              onError={setResultsError}
              selectable={me.platformPrivileges.bulkEditStructuredPropertyValues}
              ticked={ticked}
              onTick={setTicked}
            />
          ) : (
            <section className="results">
              <Loading what="the search" />
            </section>
          )}
        </div>
      </div>
    </>
  );
}

/**
 * What the search met: a sort the server refuses (a property's value over too many
 * matches) is told with the ways on, the rest as the server words it. A refused sort is
 * known by the field the error names (`sort`), never by its words.
 */
function SearchError({ error, sorted, params, onChange }: { error: unknown; sorted: boolean; params: URLSearchParams; onChange(next: URLSearchParams): void }) {
  const nameOf = usePropertyLabel();
  const { names } = usePropertyNames();
  if (error === null || error === undefined) return null;
  const sort = sortOf(params.get('sort'));
  if (sorted && sort && error instanceof ApiError && error.extensions.field === 'sort') {
    const by = sortByOf(sort);
    const known = by.kind === 'property' ? names.find((n) => n.qualifiedName === by.qualifiedName) : undefined;
    const label = by.kind === 'property' ? (known ? nameOf(known) : by.qualifiedName) : by.kind === 'field' ? by.field : by.kind === 'name' ? 'name' : 'last modified';
    return (
      <div className="message message-error" role="alert">
        <p>
          <strong>The results cannot be sorted by {label}. </strong>
          The server says: {error.message}.
        </p>
        <p>Narrow the search with keywords or the filters on the left, or:</p>
        <button type="button" onClick={() => onChange(withSort(params, { field: 'name', sortOrder: 'ASCENDING' }))}>
          Sort by name instead
        </button>{' '}
        <button type="button" className="secondary" onClick={() => onChange(withSort(params, null))}>
          Remove the sort
        </button>
      </div>
    );
  }
  return <ErrorMessage title="The search failed.">{error instanceof Error ? error.message : messageOf(error)}</ErrorMessage>;
}
