/**
 * Search across entities: keywords, a facet sidebar with counts (entity type,
 * platform, every property shown in search filters) and filters per property; the
 * results page in by scrolling. The address bar holds the whole search.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ErrorMessage, Loading } from '../components/Messages';
import { PropertyFacet, KeyFacet } from '../components/Facets';
import { SearchEntitiesDocument, SearchFacetsDocument, type EntityHeaderFragment } from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { entityTypeLabel } from '../lib/properties';
import { entityPath, Link, navigate, propertyPath } from '../lib/router';
import { filtersOf, searchUrl } from '../lib/searchState';
import { useQuery } from '../lib/useQuery';

const PAGE = 20;

export function SearchPage({ params }: { params: URLSearchParams }) {
  const q = params.get('q') ?? '';
  const [words, setWords] = useState(q);
  useEffect(() => setWords(q), [q]);
  const filters = filtersOf(params);
  const orFilters = filters.length ? [{ and: filters }] : [];
  const facets = useQuery(SearchFacetsDocument, { input: { query: q.trim() || '*', orFilters, searchFlags: { maxAggValues: 50 } } });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams(params);
    if (words.trim()) next.set('q', words.trim());
    else next.delete('q');
    navigate(searchUrl(next));
  };
  const go = (next: URLSearchParams) => navigate(searchUrl(next));

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
      </form>
      <div className="search-layout">
        <aside aria-label="Filters" className="facets">
          <h2>Filters</h2>
          {facets.error && <ErrorMessage>{facets.error}</ErrorMessage>}
          {!facets.data && !facets.error && <Loading what="filters" />}
          {facets.data?.aggregateAcrossEntities?.facets?.map((facet) =>
            facet.entity && 'definition' in facet.entity ? (
              <PropertyFacet key={facet.field} facet={facet} definition={facet.entity.definition} params={params} onChange={go} />
            ) : (
              <KeyFacet key={facet.field} facet={facet} params={params} onChange={go} />
            ),
          )}
        </aside>
        <Results key={params.toString()} query={q.trim() || '*'} orFilters={orFilters} />
      </div>
    </>
  );
}

function Results({ query, orFilters }: { query: string; orFilters: Array<{ and: ReturnType<typeof filtersOf> }> }) {
  const [hits, setHits] = useState<EntityHeaderFragment[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [next, setNext] = useState<string | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
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
    } catch (err) {
      setError(messageOf(err));
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

  return (
    <section className="results" aria-labelledby="results-title">
      <h2 id="results-title">Results</h2>
      {error && <ErrorMessage>{error}</ErrorMessage>}
      <p role="status" className="result-count">
        {total === null ? 'Searching…' : `${total} ${total === 1 ? 'result' : 'results'}${hits.length < total ? `, ${hits.length} shown` : ''}`}
      </p>
      <ol className="result-list">
        {hits.map((e) => (
          <li key={e.urn}>
            <ResultItem entity={e} />
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

function ResultItem({ entity: e }: { entity: EntityHeaderFragment }) {
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
  return (
    <article className="result">
      <h3>
        <Link href={href}>{title}</Link>
      </h3>
      <p>
        <span className="badge">{entityTypeLabel(e.type)}</span> {detail} <code className="urn">{e.urn}</code>
      </p>
    </article>
  );
}
