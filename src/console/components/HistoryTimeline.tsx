/**
 * Who changed which value when (the value history, docs/contract.md §13): on an entity's
 * page its writes, on a property's page the property's changes on every entity, newest
 * first, each with the actor, the interface it came through and before → after; older
 * entries page in with a button.
 */
import { useEffect, useState } from 'react';
import { ValueHistoryDocument, type ValueHistoryQuery } from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { formatTime, valueText } from '../lib/properties';
import { usePropertyLabel } from '../lib/propertyNames';
import { entityPath, Link, propertyPath } from '../lib/router';
import { ErrorMessage, Loading } from './Messages';

type Entry = ValueHistoryQuery['valueHistory']['entries'][number];
type Values = Entry['changes'][number]['after'];

const PAGE = 20;

const shown = (values: Values | null | undefined) => (values == null ? 'unknown (not kept)' : values.length === 0 ? 'no value' : values.map(valueText).join(', '));

/** People are named by their urn alone; a machine token's writes and the system's say so (docs/security.md, Principals). */
const ACTOR_KIND = { PERSON: '', MACHINE: ' (machine token)', SYSTEM: ' (system)' } as const;

export function HistoryTimeline({ urn, propertyUrn, title = 'History' }: { urn?: string; propertyUrn?: string; title?: string }) {
  const nameOf = usePropertyLabel();
  const [entries, setEntries] = useState<Entry[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);

  const load = async (scrollId: string | null) => {
    setLoading(true);
    try {
      const page = (await request(ValueHistoryDocument, { input: { ...(urn ? { urn } : {}), ...(propertyUrn ? { propertyUrn } : {}), count: PAGE, scrollId } })).valueHistory;
      setEntries((e) => (scrollId ? [...e, ...page.entries] : page.entries));
      setNext(page.nextScrollId ?? null);
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    void load(null);
  }, [urn, propertyUrn]);

  const id = `history-${(urn ?? propertyUrn ?? '').replace(/[^A-Za-z0-9]+/g, '-')}`;
  return (
    <section aria-labelledby={id} className="history">
      <h2 id={id}>{title}</h2>
      {error && <ErrorMessage>{error}</ErrorMessage>}
      {!error && entries.length === 0 && (loading ? <Loading what="the history" /> : <p>No value has been changed yet.</p>)}
      <ol className="timeline">
        {entries.map((e) => (
          <li key={`${e.urn}-${e.version}-${e.time}`}>
            <p className="when">
              <time dateTime={new Date(e.time).toISOString()}>{formatTime(e.time)}</time> · {e.actorUrn}
              {ACTOR_KIND[e.actor?.principalType ?? 'PERSON']}
              {e.via ? ` · via ${e.via}` : ''}
              {!urn && (
                <>
                  {' · '}
                  <Link href={entityPath(e.urn)}>{e.urn}</Link>
                </>
              )}
            </p>
            <ul>
              {e.changes.map((c) => (
                <li key={c.structuredProperty.urn}>
                  <Link href={propertyPath(c.structuredProperty.urn)}>{nameOf(c.structuredProperty.definition)}</Link>: {shown(c.before)} → {shown(c.after)}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
      {next && (
        <button type="button" className="secondary" disabled={loading} onClick={() => void load(next)}>
          {loading ? 'Loading…' : 'Show older changes'}
        </button>
      )}
    </section>
  );
}
