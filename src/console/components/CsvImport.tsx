/**
 * A CSV import in the console: the file is read in the browser (the CLI's own CSV
 * reader, src/cli/files/), sent to the server's value import as a dry run, and every
 * problem (the file's layout's and the server's, in one pass) and every change is shown
 * before Apply writes every row in one transaction, or none.
 */
import { useState, type ChangeEvent } from 'react';
import { parseCsv } from '../../cli/files/csvFile.js';
import { importOfCsv, type CsvImport as ParsedCsv } from '../../cli/files/valuesCsvLayout.js';
import { ImportValuesDocument, type ImportValuesMutation } from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { counted, valueText } from '../lib/properties';
import { ErrorMessage, StatusMessage } from './Messages';

type Answer = ImportValuesMutation['importStructuredPropertyValues'];

interface Problem {
  readonly line: number | null;
  readonly where: string;
  readonly reason: string;
}

const shown = (values: ReadonlyArray<Parameters<typeof valueText>[0]> | null | undefined) => (values == null ? 'unknown' : values.length === 0 ? 'no value' : values.map((v) => valueText(v)).join(', '));

export function CsvImport() {
  const [file, setFile] = useState<string | null>(null);
  const [csv, setCsv] = useState<ParsedCsv | null>(null);
  const [preview, setPreview] = useState<{ answer: Answer | null; problems: Problem[] } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const send = (parsed: ParsedCsv, dryRun: boolean) =>
    request(ImportValuesDocument, { input: { columns: parsed.columns.map((c) => c.propertyUrn), rows: parsed.rows.map((r) => ({ line: r.line, urn: r.urn, cells: r.cells.map((c) => [...c]) })), dryRun } }).then(
      (d) => d.importStructuredPropertyValues,
    );

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    setPreview(null);
    setDone(null);
    setError(null);
    setCsv(null);
    if (!chosen) return;
    setFile(chosen.name);
    setBusy(true);
    try {
      const parsed = importOfCsv(parseCsv(await chosen.text(), chosen.name));
      const local: Problem[] = parsed.problems.map((p) => ({ line: p.line, where: p.field, reason: p.reason }));
      const answer = parsed.columns.length > 0 ? await send(parsed, true) : null;
      const nameOf = (urn: string | null) => parsed.columns.find((c) => c.propertyUrn === urn)?.name ?? urn ?? '';
      const remote: Problem[] = (answer?.problems ?? []).map((p) => ({ line: p.line, where: p.line === null ? `column ${nameOf(p.column)}` : [p.urn, p.column ? nameOf(p.column) : null].filter(Boolean).join(': '), reason: p.reason }));
      setCsv(parsed);
      setPreview({ answer, problems: [...local, ...remote].sort((a, b) => (a.line ?? 0) - (b.line ?? 0)) });
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const apply = async () => {
    if (!csv) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await send(csv, false);
      setDone(`${file}: ${counted(answer.changed, 'entity', 'entities')} updated, ${answer.unchanged} unchanged, in one transaction.`);
      setPreview(null);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const answer = preview?.answer;
  return (
    <section aria-labelledby="csv-import">
      <h2 id="csv-import">Import</h2>
      <div className="field">
        <label htmlFor="csv-file">CSV file to import</label>
        <input id="csv-file" type="file" accept=".csv,text/csv" onChange={(e) => void choose(e)} disabled={busy} aria-describedby="csv-file-hint" />
        <p className="hint" id="csv-file-hint">
          Every row is checked first and shown below; nothing is written until you apply, and then every row is written together, or none.
        </p>
      </div>
      {busy && !preview && <p role="status">Checking {file}…</p>}
      {error && <ErrorMessage title="The import failed.">{error}</ErrorMessage>}
      {done && <StatusMessage>{done}</StatusMessage>}
      {preview && (
        <div className="csv-preview">
          <p role="status">
            {file}: {counted(answer?.rows ?? csv?.rows.length ?? 0, 'row')}, {counted(answer?.changed ?? 0, 'entity changes', 'entities change')}, {answer?.unchanged ?? 0} unchanged,{' '}
            {counted(preview.problems.length, 'problem')}.
          </p>
          {preview.problems.length > 0 && (
            <table className="csv-problems">
              <caption>{counted(preview.problems.length, 'problem')} in the file: fix them and choose the file again (nothing was written)</caption>
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Where</th>
                  <th scope="col">Problem</th>
                </tr>
              </thead>
              <tbody>
                {preview.problems.map((p, i) => (
                  <tr key={i}>
                    <td>{p.line ?? 'header'}</td>
                    <td>
                      <code>{p.where}</code>
                    </td>
                    <td>{p.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {answer && answer.changes.length > 0 && (
            <div className="table-scroll" tabIndex={0} role="region" aria-label="The changes the import makes">
              <table className="csv-changes">
                <caption>{counted(answer.changes.length, 'change')}, value by value</caption>
                <thead>
                  <tr>
                    <th scope="col">Line</th>
                    <th scope="col">Entity</th>
                    <th scope="col">Property</th>
                    <th scope="col">Before</th>
                    <th scope="col">After</th>
                  </tr>
                </thead>
                <tbody>
                  {answer.changes.map((c, i) => (
                    <tr key={i}>
                      <td>{c.line}</td>
                      <td>
                        <code className="urn">{c.urn}</code>
                      </td>
                      <td>{csv?.columns.find((col) => col.propertyUrn === c.change.structuredProperty.urn)?.name ?? c.change.structuredProperty.urn}</td>
                      <td>{shown(c.change.before)}</td>
                      <td>{shown(c.change.after)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {preview.problems.length === 0 && (
            <button type="button" disabled={busy || (answer?.changed ?? 0) === 0} onClick={() => void apply()}>
              Apply to {counted(answer?.changed ?? 0, 'entity', 'entities')}
            </button>
          )}
        </div>
      )}
    </section>
  );
}
