/**
 * A save of an entity's values refused as stale (issue #39: two stewards saved the same
 * dataset and one change was lost without a word). It says who saved since, when and
 * through what, and each property they changed before → after beside what this person
 * is saving, and lets them choose: keep theirs (their save, written over the other),
 * take the other's (nothing written, the page reads the entity again), or, property by
 * property, which of the two stands.
 */
import { useEffect, useRef, useState } from 'react';
import type { PropertySummaryFragment } from '../generated/graphql';
import { facetValueText } from '../lib/properties';
import { usePropertyLabel } from '../lib/propertyNames';
import { valuesOf, type StaleWrite } from '../lib/staleWrite';
import { WritesSince } from './WritesSince';

/** The values a person chose for one property: null removes it. */
export type Choice = { readonly property: PropertySummaryFragment; readonly values: readonly string[] };

interface Row {
  readonly urn: string;
  readonly property: PropertySummaryFragment | undefined;
  /** As this person opened the page. */
  readonly before: readonly string[];
  /** As it is stored now, after the other saves. */
  readonly theirs: readonly string[];
  /** What this person's save would make it: their edit for the property they saved, else as they opened it. */
  readonly yours: readonly string[];
  readonly edited: boolean;
}

interface Props {
  readonly stale: StaleWrite;
  /** The property this person saved, the values they saved (empty: removed), and those it had when they opened the page. */
  readonly mine: { readonly property: PropertySummaryFragment; readonly values: readonly string[]; readonly before: readonly string[] };
  readonly properties: ReadonlyMap<string, PropertySummaryFragment>;
  readonly busy: boolean;
  /** Writes these properties' values (empty removes one) over the version named. */
  onSave(choices: readonly Choice[], version: string): void;
  onTakeTheirs(): void;
}

const text = (values: readonly string[]) => (values.length === 0 ? 'no value' : values.join(', '));
const same = (a: readonly string[], b: readonly string[]) => JSON.stringify(a) === JSON.stringify(b);
/** Values as the refusal gives them, numbers as the page writes them (`2`, not `2.0`). */
const read = (property: PropertySummaryFragment | undefined, v: unknown) => valuesOf(v).map((x) => (property ? facetValueText(property.definition, x) : x));

export function StaleValues({ stale, mine, properties, busy, onSave, onTakeTheirs }: Props) {
  const nameOf = usePropertyLabel();
  const heading = useRef<HTMLHeadingElement>(null);
  const changed = new Map(stale.changes.filter((c) => c.propertyUrn).map((c) => [c.propertyUrn!, c]));
  const mineChange = changed.get(mine.property.urn);
  const rows: Row[] = [
    {
      urn: mine.property.urn,
      property: mine.property,
      before: mineChange ? read(mine.property, mineChange.before) : mine.before,
      theirs: mineChange ? read(mine.property, mineChange.after) : mine.before,
      yours: mine.values,
      edited: true,
    },
    ...[...changed.values()]
      .filter((c) => c.propertyUrn !== mine.property.urn)
      .map((c) => {
        const property = properties.get(c.propertyUrn!);
        return { urn: c.propertyUrn!, property, before: read(property, c.before), theirs: read(property, c.after), yours: read(property, c.before), edited: false };
      }),
  ];
  // Their change of mine stays theirs unless chosen; their changes elsewhere stand unless undone.
  const [picks, setPicks] = useState<Record<string, 'yours' | 'theirs'>>(() => Object.fromEntries(rows.map((r) => [r.urn, r.edited ? 'yours' : 'theirs'])));
  useEffect(() => heading.current?.focus(), [stale]);
  const label = (r: Row) => (r.property ? nameOf(r.property.definition) : r.urn);
  const chosen = (pick: (r: Row) => boolean): Choice[] =>
    rows.filter((r) => r.property && pick(r) && !same(r.yours, r.theirs)).map((r) => ({ property: r.property!, values: r.yours }));

  return (
    <section className="stale" aria-labelledby="stale-title">
      <h3 id="stale-title" tabIndex={-1} ref={heading}>
        Not saved: someone changed this entity after you opened it
      </h3>
      <WritesSince stale={stale} subject={nameOf(mine.property.definition)} opened="the page" />
      <table className="stale-changes">
        <caption>Their changes and yours, property by property: choose which stands</caption>
        <thead>
          <tr>
            <th scope="col">Property</th>
            <th scope="col">When you opened it</th>
            <th scope="col">Theirs (now stored)</th>
            <th scope="col">Yours</th>
            <th scope="col">Keep</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.urn} data-property={r.property?.definition.qualifiedName ?? r.urn}>
              <th scope="row">{label(r)}</th>
              <td>{text(r.before)}</td>
              <td>{same(r.before, r.theirs) ? <span className="hint">unchanged</span> : text(r.theirs)}</td>
              <td>{r.edited ? <strong>{text(r.yours)}</strong> : <span className="hint">{text(r.yours)} (as you opened it)</span>}</td>
              <td>
                <fieldset className="stale-pick">
                  <legend className="visually-hidden">Keep for {label(r)}</legend>
                  {(['yours', 'theirs'] as const).map((side) => (
                    <label key={side} className="inline">
                      <input
                        type="radio"
                        name={`keep-${r.urn}`}
                        value={side}
                        checked={picks[r.urn] === side}
                        disabled={!r.property}
                        onChange={() => setPicks((p) => ({ ...p, [r.urn]: side }))}
                      />{' '}
                      {side === 'yours' ? 'Yours' : 'Theirs'}
                    </label>
                  ))}
                </fieldset>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="actions">
        <button type="button" disabled={busy} onClick={() => onSave(chosen((r) => r.edited), stale.currentVersion)}>
          Keep mine
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={onTakeTheirs}>
          Take theirs
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => onSave(chosen((r) => picks[r.urn] === 'yours'), stale.currentVersion)}>
          Save my choices
        </button>
      </div>
      <p className="hint">
        Keep mine writes your {nameOf(mine.property.definition)} over theirs and leaves their other changes; Take theirs discards your change and shows what is stored; Save my
        choices writes, property by property, the side chosen.
      </p>
    </section>
  );
}
