/**
 * The search sidebar's facets: checkboxes with counts for entity types, platforms,
 * allowed values and texts; a range for numbers and dates; has a value / has none.
 */
import { valueTypeOfStd } from '../../domain/registry/valueTypes.js';
import { useEffect, useState, type FormEvent } from 'react';
import type { DefinitionFragment, SearchFacetsQuery } from '../generated/graphql';
import { counted, entityTypeLabel, facetValueText, isRanged } from '../lib/properties';
import { usePropertyLabel } from '../lib/propertyNames';
import { toggled, withValues } from '../lib/searchState';

type Facet = NonNullable<NonNullable<SearchFacetsQuery['aggregateAcrossEntities']>['facets']>[number];

interface FacetProps {
  readonly facet: Facet;
  readonly params: URLSearchParams;
  onChange(next: URLSearchParams): void;
}

const slug = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-');

function Checkboxes({ legend, paramKey, options, params, onChange }: { legend: string; paramKey: string; options: Array<{ value: string; label: string; count: number; description?: string | null }>; params: URLSearchParams; onChange(next: URLSearchParams): void }) {
  const chosen = params.getAll(paramKey);
  // A chosen value the counts no longer list (it matches nothing now) stays visible, so it can be unchecked.
  const all = [...options, ...chosen.filter((c) => !options.some((o) => o.value === c)).map((value) => ({ value, label: value, count: 0, description: null }))];
  return (
    <fieldset className="facet">
      <legend>{legend}</legend>
      {all.length === 0 && <p className="hint">No values</p>}
      {all.map((o) => {
        const id = `facet-${slug(paramKey)}-${slug(o.value)}`;
        return (
          <div key={o.value} className="facet-option">
            <input id={id} type="checkbox" checked={chosen.includes(o.value)} onChange={(e) => onChange(toggled(params, paramKey, o.value, e.target.checked))} aria-describedby={o.description ? `${id}-description` : undefined} />
            <label htmlFor={id}>
              {o.label} <span className="count">({o.count})</span>
            </label>
            {o.description && (
              <span id={`${id}-description`} className="value-description">
                {o.description}
              </span>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}

export function KeyFacet({ facet, params, onChange }: FacetProps) {
  const paramKey = facet.field === '_entityType' ? 'type' : facet.field === 'platform' ? 'platform' : null;
  if (!paramKey) return null;
  const label = (value: string) => (paramKey === 'type' ? entityTypeLabel(value) : value.replace(/^urn:li:dataPlatform:/, ''));
  return (
    <Checkboxes
      legend={facet.displayName ?? facet.field}
      paramKey={paramKey}
      options={facet.aggregations.map((a) => ({ value: a.value, label: label(a.value), count: a.count }))}
      params={params}
      onChange={onChange}
    />
  );
}

export function PropertyFacet({ facet, definition: d, params, onChange }: FacetProps & { definition: DefinitionFragment }) {
  const nameOf = usePropertyLabel();
  const name = d.qualifiedName;
  const title = nameOf(d);
  return (
    <section className="property-facet" aria-label={title}>
      <h3>{title}</h3>
      {isRanged(d) ? (
        <RangeFilter definition={d} params={params} onChange={onChange} values={facet.aggregations.reduce((n, a) => n + a.count, 0)} />
      ) : (
        <Checkboxes
          legend={`Values of ${title}`}
          paramKey={`v:${name}`}
          options={facet.aggregations.map((a) => ({ value: a.value, label: facetValueText(d, a.value), count: a.count, description: a.description }))}
          params={params}
          onChange={onChange}
        />
      )}
      <Presence name={name} title={title} params={params} onChange={onChange} />
    </section>
  );
}

function RangeFilter({ definition: d, params, onChange, values }: { definition: DefinitionFragment; params: URLSearchParams; onChange(next: URLSearchParams): void; values: number }) {
  const nameOf = usePropertyLabel();
  const name = d.qualifiedName;
  const [min, setMin] = useState(params.get(`min:${name}`) ?? '');
  const [max, setMax] = useState(params.get(`max:${name}`) ?? '');
  useEffect(() => {
    setMin(params.get(`min:${name}`) ?? '');
    setMax(params.get(`max:${name}`) ?? '');
  }, [params, name]);
  const type = valueTypeOfStd(d.valueType.info.type)?.scale ?? 'number';
  const id = `range-${slug(name)}`;
  const apply = (event: FormEvent) => {
    event.preventDefault();
    onChange(withValues(withValues(params, `min:${name}`, [min.trim()]), `max:${name}`, [max.trim()]));
  };
  return (
    <form className="range" onSubmit={apply} aria-label={`Range of ${nameOf(d)}`}>
      <p className="hint">{counted(values, 'value')} in the results</p>
      <div className="field">
        <label htmlFor={`${id}-min`}>From</label>
        <input id={`${id}-min`} type={type} step="any" value={min} onChange={(e) => setMin(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-max`}>To</label>
        <input id={`${id}-max`} type={type} step="any" value={max} onChange={(e) => setMax(e.target.value)} />
      </div>
      <button type="submit" className="secondary">
        Apply range
      </button>
    </form>
  );
}

function Presence({ name, title, params, onChange }: { name: string; title: string; params: URLSearchParams; onChange(next: URLSearchParams): void }) {
  const key = `has:${name}`;
  const current = params.get(key) ?? '';
  const choices = [
    { value: '', label: 'Any' },
    { value: 'yes', label: 'Has a value' },
    { value: 'no', label: 'Has no value' },
  ];
  return (
    <fieldset className="presence">
      <legend>{title}: presence</legend>
      {choices.map((c) => (
        <label key={c.value} className="inline">
          <input type="radio" name={key} value={c.value} checked={current === c.value} onChange={() => onChange(withValues(params, key, [c.value]))} /> {c.label}
        </label>
      ))}
    </fieldset>
  );
}
