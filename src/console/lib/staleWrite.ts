/**
 * A save refused as stale (docs/contract.md §14, "Stale writes"): the console sends the
 * version it read with every save, and the server's refusal says who wrote since, when,
 * through which interface, and what changed. This reads that refusal off the GraphQL
 * error (extensions.reason STALE) into typed values the pages show.
 */
import { displayNameOf, principalKindOf } from '../../domain/principal.js';
import type { LaterWrite, StaleChange } from '../../domain/staleWrite.js';
import { ApiError } from './api';
import { formatTime } from './properties';

export interface StaleWrite {
  readonly message: string;
  /** The version the refused save named (the one the page read). */
  readonly expectedVersion: string;
  /** The version to name to write over the change made since. */
  readonly currentVersion: string;
  readonly writesSince: readonly LaterWrite[];
  readonly changes: readonly StaleChange[];
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function laterWrite(x: unknown): LaterWrite | null {
  if (!isRecord(x) || typeof x.actor !== 'string' || typeof x.time !== 'number') return null;
  return { version: String(x.version ?? ''), actor: x.actor, time: x.time, via: typeof x.via === 'string' ? x.via : null };
}

function change(x: unknown): StaleChange | null {
  if (!isRecord(x)) return null;
  const named = typeof x.propertyUrn === 'string' ? { propertyUrn: x.propertyUrn } : typeof x.field === 'string' ? { field: x.field } : null;
  return named && { ...named, before: x.before ?? null, after: x.after ?? null };
}

/** The stale refusal an error carries; null for any other error. */
export function staleOf(err: unknown): StaleWrite | null {
  if (!(err instanceof ApiError) || err.reason !== 'STALE') return null;
  const x = err.extensions;
  if (typeof x.currentVersion !== 'string') return null;
  return {
    message: err.message,
    expectedVersion: String(x.expectedVersion ?? ''),
    currentVersion: x.currentVersion,
    writesSince: (Array.isArray(x.writesSince) ? x.writesSince : []).map(laterWrite).filter((w): w is LaterWrite => w !== null),
    changes: (Array.isArray(x.changes) ? x.changes : []).map(change).filter((c): c is StaleChange => c !== null),
  };
}

const KIND = { person: '', machine: ' (machine token)', system: ' (system)' } as const;

/** A later write as people read it: who (a person, a machine token or the system), when, through what. */
export function writeText(w: LaterWrite): string {
  return `${displayNameOf(w.actor)}${KIND[principalKindOf(w.actor)]} at ${formatTime(w.time)}${w.via ? ` via ${w.via}` : ''}`;
}

/** A property's values before or after, as the refusal gives them (null: none). */
export function valuesOf(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  return v === null || v === undefined ? [] : [String(v)];
}

/** One field of a whole record a stale save missed, as the choice shows it. */
export interface StaleField {
  readonly field: string;
  readonly label: string;
  /** As the form opened it, as stored now, as this person's form has it: in words. */
  readonly before: string;
  readonly theirs: string;
  readonly yours: string;
  /** Whether this person changed it. */
  readonly edited: boolean;
  /** Whether the form can take either side (a field it does not edit stays theirs). */
  readonly choosable: boolean;
}

/**
 * The fields the refusal names (per field for aspects other than values), among those a
 * form shows, each in words beside this person's value of it.
 */
export function staleFields(
  stale: StaleWrite,
  fields: ReadonlyArray<{ readonly field: string; readonly label: string; readonly choosable: boolean }>,
  mine: Readonly<Record<string, unknown>>,
  text: (field: string, value: unknown) => string,
): StaleField[] {
  return fields.flatMap((f) => {
    const c = stale.changes.find((x) => x.field === f.field);
    if (!c) return [];
    const before = text(f.field, c.before);
    const yours = text(f.field, mine[f.field]);
    return [{ field: f.field, label: f.label, before, theirs: text(f.field, c.after), yours, edited: yours !== before, choosable: f.choosable }];
  });
}
