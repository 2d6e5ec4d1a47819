/**
 * Entity reads as readers see them: which entities exist (a schema field exists exactly
 * when its dataset does) and their views, the named aspects or all of them, each shaped
 * by its aspect's rules (hidden values left out). The read half of EntityService.
 */
import type { UrnNamespace } from '../domain/typeUrns.js';
import { parentUrnOf, type Urn } from '../domain/urn.js';
import type { HeldValue } from '../domain/writes/writeState.js';
import { existingEntities, latestAspectsOfMany, type EntityPageReader } from '../store/aspects.js';
import type { Db } from '../store/database.js';
import { valuesOfEntities } from '../store/propertyValues.js';
import { isKnownAspect } from '../domain/registry/entityTypes.js';
import { handlerFor } from './aspects/handlers.js';
import type { AspectValue, EntityView } from './entityView.js';

/** The URNs among `urns` whose entity exists. */
export async function existingUrns(db: Db, urns: readonly Urn[]): Promise<Set<string>> {
  const parents = urns.map((u) => parentUrnOf(u));
  const found = await existingEntities(db, [...urns.map((u) => u.value), ...parents.filter((p): p is string => p !== undefined)]);
  return new Set(urns.filter((u, i) => found.has(u.value) || (parents[i] !== undefined && found.has(parents[i]!))).map((u) => u.value));
}

/** The views of the entities that exist, with the aspects named (all of them when none are). */
/** What reading views needs: the database, its page reader, and the namespace views show type URNs in. */
export interface ViewReads {
  readonly db: Db;
  readonly readEntityPage: EntityPageReader;
  readonly urnNamespace: UrnNamespace;
}

export async function readEntityViews(deps: ViewReads, urns: readonly Urn[], aspects?: readonly string[]): Promise<Map<string, EntityView>> {
  const out = new Map<string, EntityView>();
  const db = deps.db;
  if (aspects) for (const urn of urns) for (const a of aspects) if (!isKnownAspect(urn.entityType, a)) handlerFor(urn.entityType, a);
  const needsValues = (urn: Urn, names: readonly string[]) => names.some((name) => handlerFor(urn.entityType, name).needs(urn, undefined).values);
  const show = (urn: Urn, names: readonly string[], own: ReadonlyMap<string, { metadata: unknown; systemMetadata: Record<string, unknown> | null }>, values: readonly HeldValue[]) => {
    const type = urn.entityType;
    const context = { urn, values, urnNamespace: deps.urnNamespace };
    const result = new Map<string, AspectValue>();
    for (const name of names) {
      if (name !== type.keyAspect && !own.has(name)) continue;
      const aspect = name === type.keyAspect ? undefined : own.get(name);
      result.set(name, { value: handlerFor(type, name).view(aspect?.metadata, context), systemMetadata: aspect?.systemMetadata ?? null });
    }
    out.set(urn.value, { urn: urn.value, entityType: type, aspects: result });
  };
  if (aspects) {
    // With the aspects named, what to read is known before whether the entities exist:
    // one statement reads it all (a search page's read is one round trip, not three).
    const page = await deps.readEntityPage(urns.map((u) => ({ urn: u.value, parent: parentUrnOf(u), values: needsValues(u, aspects) })), aspects);
    for (const urn of urns) {
      const row = page.get(urn.value);
      if (row?.present) show(urn, aspects, row.aspects, row.values);
    }
    return out;
  }
  // A schema field exists exactly when its dataset does, aspects or not.
  const existing = await existingUrns(db, urns);
  const live = urns.filter((u) => existing.has(u.value));
  const stored = await latestAspectsOfMany(db, live.map((u) => u.value));
  const names = (urn: Urn) => [urn.entityType.keyAspect, ...(stored.get(urn.value)?.keys() ?? [])];
  const values = await valuesOfEntities(db, live.filter((u) => needsValues(u, names(u))).map((u) => u.value));
  for (const urn of live) show(urn, names(urn), stored.get(urn.value) ?? new Map(), values.get(urn.value) ?? []);
  return out;
}
