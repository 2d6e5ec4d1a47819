/**
 * A bulk edit (docs/contract.md §13, §15) of the search results ticked, or of every entity
 * a search selects (all that match the search page's keywords and filters, or a test's
 * failing assets: `failingTests:<urn>`): one property's value set, added or removed on
 * each of them. Preview runs the edit as a dry run and states its impact (how many
 * entities the search selects, change, stay, are refused and why, the first changes value
 * by value) before anything is written; Apply starts the job and follows it to its end
 * (BulkEditOutcome). A search is kept as the search: the job reads it as it runs, and the
 * panel says what that means for entities changed meanwhile.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { ApplicablePropertiesDocument, BulkEditDocument, BulkEditJobDocument, type AndFilterInput, type BulkEditMutation, type BulkEditOperation, type EntityType, type PropertySummaryFragment } from '../generated/graphql';
import { LIMITS } from '../../domain/limits.js';
import { messageOf, request } from '../lib/api';
import { counted, valueText } from '../lib/properties';
import { usePropertyLabel } from '../lib/propertyNames';
import { useQuery } from '../lib/useQuery';
import { BulkEditOutcome, type BulkJob } from './BulkEditOutcome';
import { ErrorMessage } from './Messages';
import { valueInputs } from './ValueEditor';

type Preview = BulkEditMutation['bulkEditStructuredProperties'];

const OPERATIONS: ReadonlyArray<{ value: BulkEditOperation; label: string }> = [
  { value: 'SET', label: 'Set the value' },
  { value: 'ADD', label: 'Add the value' },
  { value: 'REMOVE', label: 'Remove the value (empty: the property)' },
];
const POLL_MS = 400;

const shown = (values: ReadonlyArray<Parameters<typeof valueText>[0]>) => (values.length === 0 ? 'no value' : values.map(valueText).join(', '));

/** What the edit applies to: entities named, or a search's hits (the job resolves the search as it runs). */
export type Selection =
  | { readonly urns: readonly string[] }
  | { readonly query: string; readonly orFilters?: readonly AndFilterInput[]; readonly types?: readonly EntityType[]; readonly count: number; readonly what: string };

export function BulkEditPanel({ selection, onDone }: { selection: Selection; onDone(job: BulkJob | null): void }) {
  const nameOf = usePropertyLabel();
  const properties = useQuery(ApplicablePropertiesDocument, { input: { types: ['STRUCTURED_PROPERTY'], query: '*', count: 1000 } });
  const choices = (properties.data?.scrollAcrossEntities?.searchResults ?? [])
    .map((r) => r.entity)
    .filter((e): e is PropertySummaryFragment => 'definition' in e && !(e as PropertySummaryFragment).status?.removed)
    .sort((a, b) => nameOf(a.definition).localeCompare(nameOf(b.definition)));
  const [propertyUrn, setPropertyUrn] = useState('');
  const [operation, setOperation] = useState<BulkEditOperation>('SET');
  const [value, setValue] = useState('');
  const [preview, setPreview] = useState<Preview | null>(null);
  const [job, setJob] = useState<BulkJob | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const property = choices.find((c) => c.urn === propertyUrn);

  const selected = 'urns' in selection ? selection.urns.length : selection.count;
  const title = 'urns' in selection ? `Edit ${counted(selected, 'selected entity', 'selected entities')}` : `Edit ${selection.what}`;
  // A changed selection or edit needs a new preview.
  const selectionKey = 'urns' in selection ? selection.urns.join('\n') : JSON.stringify([selection.query, selection.orFilters, selection.types]);
  useEffect(() => setPreview(null), [selectionKey, propertyUrn, operation, value]);
  // A new selection starts a new edit: the last one's outcome goes.
  useEffect(() => setJob(null), [selectionKey]);

  const input = () => {
    if (!property) throw new Error('Choose a property');
    const texts = value.trim() === '' ? [] : [value];
    const values = operation === 'REMOVE' && texts.length === 0 ? [] : (() => {
      const checked = valueInputs(property, texts);
      if ('problem' in checked) throw new Error(checked.problem);
      return checked.values;
    })();
    const target =
      'urns' in selection
        ? { urns: [...selection.urns] }
        : { query: selection.query, ...(selection.orFilters?.length ? { orFilters: [...selection.orFilters] } : {}), ...(selection.types?.length ? { types: [...selection.types] } : {}) };
    return { ...target, structuredPropertyUrn: property.urn, operation, values };
  };

  const run = async (dryRun: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const answer = (await request(BulkEditDocument, { input: { ...input(), dryRun } })).bulkEditStructuredProperties;
      if (dryRun) {
        setJob(null);
        setPreview(answer);
      } else if (answer.job) await follow(answer.job.id);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const follow = async (id: string) => {
    let current: BulkJob | null = null;
    for (;;) {
      current = (await request(BulkEditJobDocument, { id })).job ?? null;
      if (current) setJob(current);
      if (!current || current.status === 'DONE' || current.status === 'FAILED') break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    setPreview(null);
    onDone(current);
  };
  const running = job !== null && (job.status === 'PENDING' || job.status === 'RUNNING');
  const refusedCount = preview ? preview.entities - preview.changed - preview.unchanged : 0;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(true);
  };

  return (
    <section className="bulk-edit" aria-labelledby="bulk-edit-title">
      <h2 id="bulk-edit-title">{title}</h2>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor="bulk-property">Property</label>
          <select id="bulk-property" value={propertyUrn} onChange={(e) => setPropertyUrn(e.target.value)}>
            <option value="">Choose a property…</option>
            {choices.map((c) => (
              <option key={c.urn} value={c.urn}>
                {nameOf(c.definition)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="bulk-operation">Change</label>
          <select id="bulk-operation" value={operation} onChange={(e) => setOperation(e.target.value as BulkEditOperation)}>
            {OPERATIONS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="bulk-value">Value</label>
          {property?.definition.allowedValues?.length ? (
            <select id="bulk-value" value={value} onChange={(e) => setValue(e.target.value)}>
              <option value="">{operation === 'REMOVE' ? 'Any (remove the property)' : 'Choose a value…'}</option>
              {property.definition.allowedValues.map((a) => (
                <option key={valueText(a.value)} value={valueText(a.value)}>
                  {valueText(a.value)}
                </option>
              ))}
            </select>
          ) : (
            <input id="bulk-value" value={value} onChange={(e) => setValue(e.target.value)} />
          )}
        </div>
        <button type="submit" disabled={busy || running || !property}>
          Preview the change
        </button>
      </form>
      {error && <ErrorMessage>{error}</ErrorMessage>}
      {'query' in selection && (
        <p className="hint">
          The edit keeps the search, not a list of its results: the job reads the matching entities page by page as it runs, at most {LIMITS.bulkEditEntities.toLocaleString('en')} (a larger search is
          refused before anything changes). An entity someone changes after the preview is edited on its values as they are at its turn; one that no longer matches the search then is left as it is and
          listed with the reason.
        </p>
      )}
      {preview && !running && (
        <div className="confirm" role="dialog" aria-labelledby="bulk-confirm-title" aria-describedby="bulk-confirm-selected">
          <h3 id="bulk-confirm-title">
            {property ? nameOf(property.definition) : ''}: {counted(preview.changed, 'entity changes', 'entities change')}, {preview.unchanged} unchanged, {refusedCount} refused
          </h3>
          <p id="bulk-confirm-selected">
            {'query' in selection ? `The search selects ${counted(preview.entities, 'entity', 'entities')} now` : `${counted(preview.entities, 'entity', 'entities')} selected`} (one edit takes at most{' '}
            {preview.limit.toLocaleString('en')}).{refusedCount > 10 ? ` The first 10 refusals are below; every one is listed when the edit is applied.` : ''}
          </p>
          <ul className="bulk-changes">
            {preview.changes.slice(0, 10).map((c) => (
              <li key={c.urn}>
                <code className="urn">{c.urn}</code>: {shown(c.before)} → {shown(c.after)}
              </li>
            ))}
            {preview.refused.slice(0, 10).map((r) => (
              <li key={r.urn}>
                <code className="urn">{r.urn}</code>: refused: {r.reason}
              </li>
            ))}
          </ul>
          <button type="button" disabled={busy || preview.changed === 0} onClick={() => void run(false)}>
            Apply to {counted(preview.changed, 'entity', 'entities')}
          </button>{' '}
          <button type="button" className="secondary" onClick={() => setPreview(null)}>
            Cancel
          </button>
        </div>
      )}
      {job && <BulkEditOutcome job={job} selected={selected} />}
    </section>
  );
}
