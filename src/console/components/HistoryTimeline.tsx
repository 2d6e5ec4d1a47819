/**
 * Who changed which value when (the value history, docs/contract.md §13): on an entity's
 * page its writes, on a property's page the property's changes on every entity, newest
 * first, each with the actor, the interface it came through and before → after; older
 * entries page in with a button. On a property's or a test's page, what happened to it
 * as a whole (created, changed, a new version, a migration's start and end, soft
 * deleted, restored, deleted permanently: docs/contract.md §14) stands among them, in time.
 */
import { useEffect, useState } from 'react';
import { lifecycleEventText } from '../../domain/lifecycleEvents.js';
import { ValueHistoryDocument, type ValueHistoryQuery } from '../generated/graphql';
import { messageOf, request } from '../lib/api';
import { formatTime, valueText } from '../lib/properties';
import { usePropertyLabel } from '../lib/propertyNames';
import { entityPath, Link, propertyPath } from '../lib/router';
import { ErrorMessage, Loading } from './Messages';

type Entry = ValueHistoryQuery['valueHistory']['entries'][number];
type LifecycleEvent = ValueHistoryQuery['valueHistory']['events'][number];
type Values = Entry['changes'][number]['after'];

const PAGE = 20;

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const shown = (values: Values | null | undefined) => (values == null ? 'unknown (not kept)' : values.length === 0 ? 'no value' : values.map(valueText).join(', '));

/** People are named by their urn alone; a machine token's writes and the system's say so (docs/security.md, Principals). */
const ACTOR_KIND = { PERSON: '', MACHINE: ' (machine token)', SYSTEM: ' (system)' } as const;

function detailOf(text: string | null | undefined): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function Who({ time, actorUrn, kind, via }: { time: number; actorUrn: string; kind: keyof typeof ACTOR_KIND | undefined; via: string | null | undefined }) {
  return (
    <>
      <time dateTime={new Date(time).toISOString()}>{formatTime(time)}</time> · {actorUrn}
      {ACTOR_KIND[kind ?? 'PERSON']}
      {via ? ` · via ${via}` : ''}
    </>
  );
}

/**
 * `urn` names an entity (a property or a test: its lifecycle too); `propertyUrn` a property's
 * values on every entity, with its lifecycle.
 */
export function HistoryTimeline({ urn, propertyUrn, title = 'History' }: { urn?: string; propertyUrn?: string; title?: string }) {
  const nameOf = usePropertyLabel();
  const [entries, setEntries] = useState<Entry[]>([]);
  const [events, setEvents] = useState<LifecycleEvent[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);

  const load = async (scrollId: string | null) => {
    setLoading(true);
    try {
      const page = (await request(ValueHistoryDocument, { input: { ...(urn ? { urn } : {}), ...(propertyUrn ? { propertyUrn } : {}), count: PAGE, scrollId } })).valueHistory;
      setEntries((e) => (scrollId ? [...e, ...page.entries] : page.entries));
      // The lifecycle comes whole with the first page.
      if (!scrollId) setEvents(page.events);
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

  // Events older than the last entry loaded wait for the older pages, so the list stays in time order.
  const oldest = next ? (entries.at(-1)?.time ?? Number.POSITIVE_INFINITY) : Number.NEGATIVE_INFINITY;
  const timeline = [
    ...entries.map((entry) => ({ kind: 'entry' as const, time: entry.time, entry })),
    ...events.filter((e) => e.time >= oldest).map((event) => ({ kind: 'event' as const, time: event.time, event })),
  ].sort((a, b) => b.time - a.time);

  const id = `history-${(urn ?? propertyUrn ?? '').replace(/[^A-Za-z0-9]+/g, '-')}`;
  return (
    <section aria-labelledby={id} className="history">
      <h2 id={id}>{title}</h2>
      {error && <ErrorMessage>{error}</ErrorMessage>}
      {!error && entries.length === 0 && events.length === 0 && (loading ? <Loading what="the history" /> : <p>No value has been changed yet.</p>)}
      <ol className="timeline">
        {timeline.map((item) =>
          item.kind === 'event' ? (
            <li key={`event-${item.event.event}-${item.event.time}`} className="lifecycle" data-event={item.event.event}>
              <p className="when">
                <Who time={item.event.time} actorUrn={item.event.actorUrn} kind={item.event.actor?.principalType} via={item.event.via} />
              </p>
              <p className="event">
                <strong>{capitalised(lifecycleEventText(item.event.event, detailOf(item.event.detail)))}</strong>
              </p>
            </li>
          ) : (
            <li key={`${item.entry.urn}-${item.entry.version}-${item.entry.time}`}>
              <p className="when">
                <Who time={item.entry.time} actorUrn={item.entry.actorUrn} kind={item.entry.actor?.principalType} via={item.entry.via} />
                {!urn && (
                  <>
                    {' · '}
                    <Link href={entityPath(item.entry.urn)}>{item.entry.urn}</Link>
                  </>
                )}
              </p>
              <ul>
                {item.entry.changes.map((c) => (
                  <li key={c.structuredProperty.urn}>
                    <Link href={propertyPath(c.structuredProperty.urn)}>{nameOf(c.structuredProperty.definition)}</Link>: {shown(c.before)} → {shown(c.after)}
                  </li>
                ))}
              </ul>
            </li>
          ),
        )}
      </ol>
      {next && (
        <button type="button" className="secondary" disabled={loading} onClick={() => void load(next)}>
          {loading ? 'Loading…' : 'Show older changes'}
        </button>
      )}
    </section>
  );
}
