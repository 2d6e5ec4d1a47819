/**
 * Values in CSV (issue #41: CSV was the CLI's only): export the entities a search selects
 * with the properties chosen, as `propgraph values export` writes the file (with context
 * columns for the spreadsheet), and import a file back with a preview of every change
 * and every problem, found in one pass, before anything is written (components/CsvImport.tsx).
 */
import { useState, type FormEvent } from 'react';
import { CsvImport } from '../components/CsvImport';
import { ErrorMessage, Loading, StatusMessage } from '../components/Messages';
import { ApplicablePropertiesDocument, type PropertySummaryFragment } from '../generated/graphql';
import { messageOf } from '../lib/api';
import { exportCsv } from '../lib/csvExport';
import { usePropertyLabel } from '../lib/propertyNames';
import { navigate } from '../lib/router';
import { filtersOf, orOf, propertiesNamed } from '../lib/searchState';
import type { Me } from '../lib/session';
import { useQuery } from '../lib/useQuery';

/** Hands the text to the browser as a file to save. */
function download(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function CsvPage({ me, params }: { me: Me; params: URLSearchParams }) {
  const known = useQuery(ApplicablePropertiesDocument, { input: { types: ['STRUCTURED_PROPERTY'], query: '*', count: 1000 } });
  const properties = (known.data?.scrollAcrossEntities?.searchResults ?? [])
    .map((r) => r.entity)
    .filter((e): e is PropertySummaryFragment => 'definition' in e && !(e as PropertySummaryFragment).status?.removed);
  return (
    <>
      <h1>Values in CSV</h1>
      <p className="subtitle">
        Export values to a spreadsheet and import them back. A file has the entity’s urn, its name, platform, environment and description (for you; an import reads past
        them), then a column per property; several values in a cell are separated by “|”.
      </p>
      {known.error && <ErrorMessage>{known.error}</ErrorMessage>}
      {!known.data && !known.error && <Loading what="the properties" />}
      {known.data && <ExportSection params={params} properties={properties} />}
      {me.platformPrivileges.editStructuredPropertyValues ? (
        <CsvImport />
      ) : (
        <section aria-labelledby="csv-import">
          <h2 id="csv-import">Import</h2>
          <p>Your token's scope does not allow changing values; a write or admin token does.</p>
        </section>
      )}
    </>
  );
}

function ExportSection({ params, properties }: { params: URLSearchParams; properties: readonly PropertySummaryFragment[] }) {
  const nameOf = usePropertyLabel();
  const [words, setWords] = useState(params.get('q') ?? '');
  const [chosen, setChosen] = useState<string[]>(() => propertiesNamed(params).filter((n) => properties.some((p) => p.definition.qualifiedName === n)));
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const filters = filtersOf(params);
  const sorted = [...properties].sort((a, b) => nameOf(a.definition).localeCompare(nameOf(b.definition)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setProgress('Reading the entities…');
    try {
      const { text, rows } = await exportCsv({ query: words.trim() || '*', orFilters: orOf(filters) }, chosen, (n, total) => setProgress(`Read ${n} of ${total} entities…`));
      download(text, 'values.csv');
      setProgress(`Exported ${rows} ${rows === 1 ? 'entity' : 'entities'} to values.csv.`);
    } catch (err) {
      setError(messageOf(err));
      setProgress(null);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="csv-export">
      <h2 id="csv-export">Export</h2>
      <form className="property-form" onSubmit={(e) => void submit(e)}>
        <div className="field">
          <label htmlFor="csv-query">Entities: keywords or a query</label>
          <input id="csv-query" type="search" value={words} onChange={(e) => setWords(e.target.value)} placeholder="* for every entity; platform:hive AND acme.tier:gold" aria-describedby="csv-query-hint" />
          <p className="hint" id="csv-query-hint">
            {filters.length > 0 ? `With the ${filters.length} filter${filters.length === 1 ? '' : 's'} of the search you came from. ` : ''}
            <button type="button" className="link-button" onClick={() => navigate(`/search?${params}`)}>
              Refine the search
            </button>
          </p>
        </div>
        <fieldset>
          <legend>Property columns</legend>
          <div className="checkbox-grid">
            {sorted.map((p) => (
              <label key={p.urn} className="inline">
                <input
                  type="checkbox"
                  checked={chosen.includes(p.definition.qualifiedName)}
                  onChange={(e) => setChosen((c) => (e.target.checked ? [...c, p.definition.qualifiedName] : c.filter((n) => n !== p.definition.qualifiedName)))}
                />{' '}
                {nameOf(p.definition)}
              </label>
            ))}
          </div>
        </fieldset>
        <button type="submit" disabled={busy || chosen.length === 0}>
          Export as CSV
        </button>
      </form>
      {progress && <StatusMessage>{progress}</StatusMessage>}
      {error && <ErrorMessage title="The export failed.">{error}</ErrorMessage>}
    </section>
  );
}
