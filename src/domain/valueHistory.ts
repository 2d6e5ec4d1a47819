/**
 * The history of values (docs/contract.md §13): who changed which value when, read from
 * the stored versions of entities' structuredProperties aspects. Each version is one
 * write; comparing it with the version before it says, per property, what the values
 * were (`before`) and what they became (`after`). Pure: the versions come in, the
 * entries go out.
 */
import type { StructuredPropertiesAspect } from './structuredProperties.js';
import { sameValue, type TypedValue } from './typedValue.js';

/** One stored version of an entity's structuredProperties aspect, with its audit stamp. */
export interface ValuesVersion {
  readonly urn: string;
  /** DataHub's version number: 0 for the latest, 1..n for the earlier ones, oldest first. */
  readonly version: number;
  readonly metadata: unknown;
  /**
   * The version written just before this one: its metadata, `null` for the first write
   * of the aspect, `undefined` when history retention deleted it (what was there before
   * is not known).
   */
  readonly previous: unknown | null | undefined;
  /** When the version before was written (undefined: not known). */
  readonly previousTime?: number | undefined;
  readonly time: number;
  readonly actor: string;
  readonly via: string | null;
}

export interface ValueChange {
  readonly propertyUrn: string;
  /** The values before the write (empty: none); null when history retention deleted the version before. */
  readonly before: readonly TypedValue[] | null;
  readonly after: readonly TypedValue[];
}

/** One write of an entity's values: when, by whom, through which interface, and what changed. */
export interface HistoryEntry {
  readonly urn: string;
  readonly version: number;
  readonly time: number;
  readonly actor: string;
  readonly via: string | null;
  readonly changes: readonly ValueChange[];
}

/** Each property's values: those of all its entries (one per attribution source), each once. */
function valuesByProperty(metadata: unknown): Map<string, readonly TypedValue[]> {
  const properties = (metadata as Partial<StructuredPropertiesAspect> | null | undefined)?.properties;
  const out = new Map<string, TypedValue[]>();
  if (!Array.isArray(properties)) return out;
  for (const p of properties) {
    if (!p || typeof p.propertyUrn !== 'string' || !Array.isArray(p.values)) continue;
    const held = out.get(p.propertyUrn);
    if (held) held.push(...p.values.filter((v) => !held.some((w) => sameValue(v, w))));
    else out.set(p.propertyUrn, [...p.values]);
  }
  return out;
}

function sameValues(a: readonly TypedValue[], b: readonly TypedValue[]): boolean {
  return a.length === b.length && a.every((v, i) => sameValue(v, b[i]!));
}

/**
 * What a write changed, property by property, in the order the new version lists them
 * (removed properties last, in the old version's order). `previous` null: the first
 * write; undefined: unknown (retention), every property of the new version is listed.
 */
export function valueChanges(previous: unknown | null | undefined, next: unknown): ValueChange[] {
  const after = valuesByProperty(next);
  if (previous === undefined) return [...after].map(([propertyUrn, values]) => ({ propertyUrn, before: null, after: values }));
  const before = valuesByProperty(previous);
  const changes: ValueChange[] = [];
  for (const [propertyUrn, values] of after) {
    const old = before.get(propertyUrn) ?? [];
    if (!sameValues(old, values)) changes.push({ propertyUrn, before: old, after: values });
  }
  for (const [propertyUrn, values] of before) {
    if (!after.has(propertyUrn)) changes.push({ propertyUrn, before: values, after: [] });
  }
  return changes;
}

/**
 * Since when a property's values may be read back (docs/contract.md, "Which values a read
 * may return"): the start of its current lineage (its definition first written, or
 * written again after a hard delete, or given a breaking version), in ms; undefined when
 * none may be (the property is gone, or soft deleted). A version written before that
 * start holds another lineage's values, which no read returns.
 */
export type ShownSince = (propertyUrn: string) => number | undefined;

/** A stored version as a read at `time` may show it: the entries of properties whose values it may return. */
export function visibleAt(metadata: unknown, time: number, since: ShownSince): unknown {
  const aspect = metadata as Partial<StructuredPropertiesAspect> | null | undefined;
  if (!aspect || typeof aspect !== 'object' || !Array.isArray(aspect.properties)) return metadata;
  return {
    ...aspect,
    properties: aspect.properties.filter((p) => {
      const from = p && typeof p.propertyUrn === 'string' ? since(p.propertyUrn) : undefined;
      return from !== undefined && time >= from;
    }),
  };
}

/**
 * The entries for versions (newest first, as read), keeping only changes of the
 * properties `shown` allows (a property filter), and only values `since` lets a read
 * return; a version left with no change is left out.
 */
export function historyEntries(versions: readonly ValuesVersion[], shown: (propertyUrn: string) => boolean, since: ShownSince = () => 0): HistoryEntry[] {
  return versions.flatMap((v) => {
    const previous = v.previous === null || v.previous === undefined ? v.previous : visibleAt(v.previous, v.previousTime ?? v.time, since);
    const changes = valueChanges(previous, visibleAt(v.metadata, v.time, since)).filter((c) => shown(c.propertyUrn));
    return changes.length === 0 ? [] : [{ urn: v.urn, version: v.version, time: v.time, actor: v.actor, via: v.via, changes }];
  });
}

/** Where a page of history ends: the last entry's time, entity and write order (opaque to clients). */
export interface HistoryCursor {
  readonly time: number;
  readonly urn: string;
  readonly revision: number;
}
