/**
 * What a stale write missed (docs/contract.md, "Stale writes"): a write that named the version it
 * read is refused when the aspect has moved on, and told who wrote since, when, and
 * what changed, property by property for values, field by field for other aspects, so
 * a person can keep theirs, take the other's, or merge.
 */
import type { StructuredPropertiesAspect } from './structuredProperties.js';
import { valueAsString, type TypedValue } from './typedValue.js';

export interface StaleChange {
  /** The structured property whose values changed (structuredProperties), or the field (other aspects). */
  readonly propertyUrn?: string;
  readonly field?: string;
  /** Before and after as people read them; null: absent. */
  readonly before: unknown;
  readonly after: unknown;
}

export interface LaterWrite {
  readonly version: string;
  readonly actor: string;
  readonly time: number;
  readonly via: string | null;
}

function valuesByProperty(aspect: unknown, visible: (propertyUrn: string) => boolean): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of (aspect as Partial<StructuredPropertiesAspect> | undefined)?.properties ?? []) {
    if (!e || typeof e.propertyUrn !== 'string' || !visible(e.propertyUrn) || !Array.isArray(e.values)) continue;
    out.set(e.propertyUrn, [...(out.get(e.propertyUrn) ?? []), ...e.values.map((v) => valueAsString(v as TypedValue))]);
  }
  return out;
}

const MAX_CHANGES = 50;

/** What changed in an aspect from the version a writer read to the latest; `visible` says which properties' values may be shown. */
export type StaleChanges = (before: unknown, after: unknown, visible: (propertyUrn: string) => boolean) => StaleChange[];

/** Values, property by property (the structuredProperties module's). */
export const valueChanges: StaleChanges = (before, after, visible) => {
  const out: StaleChange[] = [];
  const a = valuesByProperty(before, visible);
  const b = valuesByProperty(after, visible);
  for (const p of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(p) ?? null;
    const y = b.get(p) ?? null;
    if (JSON.stringify(x) !== JSON.stringify(y)) out.push({ propertyUrn: p, before: x, after: y });
  }
  return out.slice(0, MAX_CHANGES);
};

/** Field by field: what any aspect without changes of its own shows. */
export const fieldChanges: StaleChanges = (before, after) => {
  const out: StaleChange[] = [];
  const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  const a = obj(before);
  const b = obj(after);
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) out.push({ field: k, before: a[k] ?? null, after: b[k] ?? null });
  }
  return out.slice(0, MAX_CHANGES);
};

function shown(v: unknown): string {
  if (v === null || v === undefined) return '(none)';
  return Array.isArray(v) ? v.join(', ') : JSON.stringify(v).slice(0, 120);
}

/** The stale write's refusal, in words. */
export function staleMessage(urn: string, aspect: string, expected: string, current: string, writes: readonly LaterWrite[], changes: readonly StaleChange[]): string {
  const who = writes.length === 0 ? '' : ` Since then: ${writes.slice(-5).map((w) => `${w.actor} at ${new Date(w.time).toISOString()}${w.via ? ` (${w.via})` : ''}`).join('; ')}.`;
  const what = changes.length === 0 ? '' : ` Changed: ${changes.slice(0, 10).map((c) => `${c.propertyUrn ?? c.field}: ${shown(c.before)} → ${shown(c.after)}`).join('; ')}.`;
  return `${aspect} of ${urn} is at version ${current}, not ${expected} as read, so this write would overwrite a change it did not see.${who}${what} Read it again and re-apply your change, or send the new version to overwrite.`;
}
