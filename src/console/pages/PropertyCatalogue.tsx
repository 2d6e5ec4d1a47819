/**
 * The catalogue of structured properties: keyword search over names and descriptions,
 * filters on value type, entity type and soft-deleted state, all kept in the address.
 */
import { useState, type FormEvent } from 'react';
import { ErrorMessage, Loading } from '../components/Messages';
import { PropertyCatalogueDocument, type AndFilterInput, type FacetFilterInput, type PropertySummaryFragment } from '../generated/graphql';
import { ASSET_TYPES, entityTypeLabel, typeLabel, VALUE_TYPES } from '../lib/properties';
import { usePropertyLabel } from '../lib/propertyNames';
import { Link, navigate, propertyPath } from '../lib/router';
import type { Me } from '../lib/session';
import { useQuery } from '../lib/useQuery';

type Status = 'active' | 'removed' | 'all';

export function PropertyCatalogue({ me, params }: { me: Me; params: URLSearchParams }) {
  const nameOf = usePropertyLabel();
  const q = params.get('q') ?? '';
  const valueType = params.get('valueType') ?? '';
  const entityType = params.get('entityType') ?? '';
  const status = (params.get('status') ?? 'active') as Status;
  const [words, setWords] = useState(q);

  const and: FacetFilterInput[] = [];
  if (valueType) and.push({ field: 'valueType', values: [valueType] });
  if (entityType) and.push({ field: 'entityTypes', values: [entityType] });
  if (status === 'removed') and.push({ field: 'removed', values: ['true'] });
  const orFilters: AndFilterInput[] = and.length ? [{ and }] : [];
  const result = useQuery(PropertyCatalogueDocument, {
    input: { types: ['STRUCTURED_PROPERTY'], query: q.trim() || '*', count: 200, orFilters, searchFlags: { includeSoftDeleted: status !== 'active' } },
  });

  const update = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    navigate(`/properties${next.size ? `?${next}` : ''}`, { replace: true });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update({ q: words.trim() });
  };

  const properties = (result.data?.scrollAcrossEntities?.searchResults ?? []).flatMap((r) => ('definition' in r.entity ? [r.entity as PropertySummaryFragment] : []));

  return (
    <>
      <div className="page-head">
        <h1>Structured properties</h1>
        {me.platformPrivileges.manageStructuredProperties && (
          <Link className="button" href="/properties/new">
            New property
          </Link>
        )}
      </div>
      <form className="filters" role="search" aria-label="Properties" onSubmit={submit}>
        <div className="field">
          <label htmlFor="catalogue-q">Keywords</label>
          <input id="catalogue-q" type="search" value={words} onChange={(e) => setWords(e.target.value)} placeholder="name or description" />
        </div>
        <button type="submit">Search</button>
        <div className="field">
          <label htmlFor="catalogue-type">Value type</label>
          <select id="catalogue-type" value={valueType} onChange={(e) => update({ valueType: e.target.value })}>
            <option value="">Any</option>
            {VALUE_TYPES.map((t) => (
              <option key={t.id} value={t.id}>
                {t.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="catalogue-entity">Entity type</label>
          <select id="catalogue-entity" value={entityType} onChange={(e) => update({ entityType: e.target.value })}>
            <option value="">Any</option>
            {ASSET_TYPES.map((t) => (
              <option key={t.name} value={t.name}>
                {entityTypeLabel(t.graphql)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="catalogue-status">Status</label>
          <select id="catalogue-status" value={status} onChange={(e) => update({ status: e.target.value === 'active' ? '' : e.target.value })}>
            <option value="active">Active</option>
            <option value="removed">Soft deleted</option>
            <option value="all">All</option>
          </select>
        </div>
      </form>
      {result.error && <ErrorMessage>{result.error}</ErrorMessage>}
      {result.loading && !result.data && <Loading what="properties" />}
      {result.data && (
        <>
          <p role="status">
            {result.data.scrollAcrossEntities?.total ?? 0} {result.data.scrollAcrossEntities?.total === 1 ? 'property' : 'properties'}
          </p>
          <table className="catalogue">
            <caption className="visually-hidden">Structured properties</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Qualified name</th>
                <th scope="col">Value type</th>
                <th scope="col">Cardinality</th>
                <th scope="col">Entity types</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {properties.map((p) => (
                <tr key={p.urn}>
                  <td>
                    <Link href={propertyPath(p.urn)}>{nameOf(p.definition)}</Link>
                  </td>
                  <td>
                    <code>{p.definition.qualifiedName}</code>
                  </td>
                  <td>{typeLabel(p.definition.valueType.info.type)}</td>
                  <td>{p.definition.cardinality === 'MULTIPLE' ? 'Many values' : 'One value'}</td>
                  <td>{p.definition.entityTypes.map((t) => entityTypeLabel(t.info.type)).join(', ')}</td>
                  <td>{p.status?.removed ? <span className="badge badge-removed">Soft deleted</span> : 'Active'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}
