/**
 * The search's order: the default (keyword hits by relevance, the rest by URN), the name,
 * the last change, or a property's value, ascending or descending. The choice goes into
 * the address (`sort`, lib/sortParam.ts), so a sorted search is shared by its link; the
 * server sorts (GraphQL `sortInput`).
 */
import { ApplicablePropertiesDocument, type PropertySummaryFragment } from '../generated/graphql';
import { usePropertyLabel } from '../lib/propertyNames';
import { sortByOf, sortFieldOf, sortOf, withSort, type SortBy, type SortOrder } from '../lib/sortParam';
import { useQuery } from '../lib/useQuery';

const byValue = (by: SortBy | null): string => (by === null ? '' : by.kind === 'property' ? `property:${by.qualifiedName}` : by.kind === 'field' ? `field:${by.field}` : by.kind);

function sortByFrom(value: string): SortBy | null {
  if (value === '') return null;
  if (value === 'name' || value === 'lastModified') return { kind: value };
  if (value.startsWith('property:')) return { kind: 'property', qualifiedName: value.slice('property:'.length) };
  return { kind: 'field', field: value.slice('field:'.length) };
}

/** Sort by and order, as two selects that change the address. */
export function SortControl({ params, onChange }: { params: URLSearchParams; onChange(next: URLSearchParams): void }) {
  const nameOf = usePropertyLabel();
  const properties = useQuery(ApplicablePropertiesDocument, { input: { types: ['STRUCTURED_PROPERTY'], query: '*', count: 1000 } });
  const choices = (properties.data?.scrollAcrossEntities?.searchResults ?? [])
    .map((r) => r.entity)
    .filter((e): e is PropertySummaryFragment => 'definition' in e && !(e as PropertySummaryFragment).status?.removed)
    .sort((a, b) => nameOf(a.definition).localeCompare(nameOf(b.definition)));
  const current = sortOf(params.get('sort'));
  const by = current ? sortByOf(current) : null;

  const choose = (next: SortBy | null, order: SortOrder) => onChange(withSort(params, next ? { field: sortFieldOf(next), sortOrder: order } : null));
  // The newest change first is what "last modified" is asked for; names and values start from the smallest.
  const changeBy = (value: string) => {
    const next = sortByFrom(value);
    choose(next, next?.kind === 'lastModified' ? 'DESCENDING' : 'ASCENDING');
  };

  return (
    <div className="sort-control" role="group" aria-label="Order of the results">
      <label htmlFor="sort-by">Sort by</label>
      <select id="sort-by" value={byValue(by)} onChange={(e) => changeBy(e.target.value)}>
        <option value="">Best match (keywords), else URN</option>
        <option value="name">Name</option>
        <option value="lastModified">Last modified</option>
        {by?.kind === 'field' && <option value={byValue(by)}>{by.field}</option>}
        {by?.kind === 'property' && !choices.some((c) => c.definition.qualifiedName === by.qualifiedName) && <option value={byValue(by)}>{by.qualifiedName}</option>}
        <optgroup label="A property's value">
          {choices.map((c) => (
            <option key={c.urn} value={`property:${c.definition.qualifiedName}`}>
              {nameOf(c.definition)}
            </option>
          ))}
        </optgroup>
      </select>
      <label htmlFor="sort-order">Order</label>
      <select id="sort-order" value={current?.sortOrder ?? 'ASCENDING'} disabled={!current} onChange={(e) => choose(by, e.target.value as SortOrder)}>
        <option value="ASCENDING">{by?.kind === 'lastModified' ? 'Oldest first' : 'Ascending (A to Z, smallest first)'}</option>
        <option value="DESCENDING">{by?.kind === 'lastModified' ? 'Newest first' : 'Descending (Z to A, largest first)'}</option>
      </select>
    </div>
  );
}
