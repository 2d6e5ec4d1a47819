/**
 * A save of a whole record (a property's definition, a metadata test) refused as stale:
 * someone saved it after this form was opened. It says who, when and through what, and
 * each field they changed before → after beside this person's, and lets them choose:
 * keep theirs (write the form over the other), take the other's (the form reloads with
 * what is stored), or merge field by field into the form, to check and save.
 */
import { useEffect, useRef, useState } from 'react';
import { type StaleField, type StaleWrite } from '../lib/staleWrite';
import { WritesSince } from './WritesSince';

interface Props {
  readonly stale: StaleWrite;
  /** What was saved: `property`, `test`. */
  readonly what: string;
  readonly rows: readonly StaleField[];
  readonly busy: boolean;
  onKeepMine(): void;
  onTakeTheirs(): void;
  /** Merges into the form the stored record's fields named (the others stay as the form has them). */
  onMerge(theirFields: readonly string[]): void;
}

export function StaleFields({ stale, what, rows, busy, onKeepMine, onTakeTheirs, onMerge }: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  // A field only they changed stays theirs; one both changed starts as this person's.
  const [picks, setPicks] = useState<Record<string, 'yours' | 'theirs'>>(() => Object.fromEntries(rows.map((r) => [r.field, r.edited ? 'yours' : 'theirs'])));
  useEffect(() => heading.current?.focus(), [stale]);

  return (
    <section className="stale" aria-labelledby="stale-title">
      <h2 id="stale-title" tabIndex={-1} ref={heading}>
        Not saved: someone changed this {what} after you opened the form
      </h2>
      <WritesSince stale={stale} subject={`this ${what}`} opened="it" />
      <table className="stale-changes">
        <caption>Their changes and yours, field by field: choose which stands</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">When you opened it</th>
            <th scope="col">Theirs (now stored)</th>
            <th scope="col">Yours</th>
            <th scope="col">Keep</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.field} data-field={r.field}>
              <th scope="row">{r.label}</th>
              <td className="stale-value">{r.before}</td>
              <td className="stale-value">{r.theirs}</td>
              <td className="stale-value">{r.edited ? <strong>{r.yours}</strong> : <span className="hint">{r.yours} (as you opened it)</span>}</td>
              <td>
                {!r.choosable ? (
                  <span className="hint">Theirs</span>
                ) : (
                  <fieldset className="stale-pick">
                    <legend className="visually-hidden">Keep for {r.label}</legend>
                    {(['yours', 'theirs'] as const).map((side) => (
                      <label key={side} className="inline">
                        <input type="radio" name={`keep-${r.field}`} value={side} checked={picks[r.field] === side} onChange={() => setPicks((p) => ({ ...p, [r.field]: side }))} />{' '}
                        {side === 'yours' ? 'Yours' : 'Theirs'}
                      </label>
                    ))}
                  </fieldset>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="actions">
        <button type="button" disabled={busy} onClick={onKeepMine}>
          Keep mine
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={onTakeTheirs}>
          Take theirs
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => onMerge(rows.filter((r) => r.choosable && picks[r.field] === 'theirs').map((r) => r.field))}>
          Merge into the form
        </button>
      </div>
      <p className="hint">
        Keep mine saves the whole form over theirs; Take theirs discards your edit and shows what is stored; Merge into the form takes the fields chosen as theirs, keeps the
        rest of yours, and leaves the result in the form to check and save.
      </p>
    </section>
  );
}
