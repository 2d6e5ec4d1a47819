/**
 * The write side of aspects, set-based so that a batch of many entities costs a few
 * statements rather than a few per entity. Two ways to write:
 * - pessimistic, inside a transaction: lock (and create) the entities, load what the
 *   write needs, write everything in one statement;
 * - optimistic, without a transaction: load (one query, no lock), then one guarded
 *   statement that writes only if no entity's version moved since the load (it bumps
 *   them) and reports whether it did; the caller retries or falls back.
 */
import type { Db, Tx } from './database.js';

type Queryable = Db | Tx;
import { Prisma } from './generated/prisma/client.js';
import type { ValueRow } from './propertyValues.js';
import type { EntityLock, StoredAspect } from './aspects.js';

/** A property value row of an entity, with its property's current state and definition. */
export interface ValueState {
  readonly propertyUrn: string;
  readonly generation: bigint;
  readonly values: unknown;
  /** The property's current generation; null when the property no longer exists. */
  readonly currentGeneration: bigint | null;
  readonly removed: boolean;
  /** The stored propertyDefinition; null when the property no longer exists. */
  readonly definition: unknown;
}

export interface WriteState {
  readonly lock: EntityLock;
  /** The entity's write counter as loaded; null when it does not exist yet. */
  readonly version: bigint | null;
  readonly aspects: Map<string, StoredAspect>;
  /** The entity's value rows (present when asked for, for writes of structuredProperties). */
  readonly valueStates: ValueState[];
}

export interface EntityToLock {
  readonly urn: string;
  readonly entityType: string;
  /** Create the entity when it does not exist. */
  readonly create: boolean;
  /** Load the entity's property value rows too. */
  readonly withValues: boolean;
}

type LoadedRow =
  | { kind: 'e'; urn: string; data: { version: string } }
  | { kind: 'a'; urn: string; data: { aspect: string; metadata: unknown; system_metadata: Record<string, unknown> | null; created_on: string; created_by: string } }
  | { kind: 'v'; urn: string; data: { property_urn: string; generation: string; values: unknown; current_generation: string | null; removed: boolean | null; definition: unknown } };

/**
 * Locks the entities' rows in URN order (so concurrent batches cannot deadlock),
 * creating those asked for, then loads the named aspects and value rows. The load is a
 * statement of its own, after the locks: under READ COMMITTED a statement that waited
 * for a row lock reads everything else with the snapshot it started with, so reading
 * in the locking statement would lose concurrent updates.
 */
export async function lockEntitiesForWrite(tx: Tx, entities: readonly EntityToLock[], aspects: readonly string[]): Promise<Map<string, WriteState>> {
  const created = new Set<string>();
  const toCreate = entities.filter((e) => e.create).sort((a, b) => (a.urn < b.urn ? -1 : 1));
  if (toCreate.length > 0) {
    const rows = await tx.$queryRaw<{ urn: string }[]>`
      INSERT INTO entity (urn, entity_type)
      SELECT * FROM unnest(${toCreate.map((e) => e.urn)}::text[], ${toCreate.map((e) => e.entityType)}::text[])
      ON CONFLICT (urn) DO NOTHING RETURNING urn`;
    for (const r of rows) created.add(r.urn);
  }
  const all = entities.map((e) => e.urn);
  const locked = await tx.$queryRaw<{ urn: string; version: bigint }[]>`SELECT urn, version FROM entity WHERE urn = ANY(${all}::text[]) ORDER BY urn FOR UPDATE`;
  const versions = new Map(locked.map((r) => [r.urn, r.version]));
  const rows = await loadRows(tx, entities.filter((e) => versions.has(e.urn)), aspects, false);
  const out = new Map<string, WriteState>();
  for (const e of entities) {
    const lock: EntityLock = created.has(e.urn) ? 'created' : versions.has(e.urn) ? 'existed' : 'missing';
    out.set(e.urn, { lock, version: versions.get(e.urn) ?? null, aspects: new Map(), valueStates: [] });
  }
  fill(out, rows);
  return out;
}

/**
 * The optimistic read: entity versions, aspects and value rows in one query, no lock.
 * An entity that does not exist is 'created' when `create` is set (the guarded write
 * will create it), else 'missing'. Parents named in `parents` come back in `existing`.
 */
export async function loadForWrite(db: Queryable, entities: readonly EntityToLock[], aspects: readonly string[], parents: readonly string[]): Promise<{ states: Map<string, WriteState>; existing: Set<string> }> {
  const rows = await loadRows(db, entities, aspects, true, parents);
  const versions = new Map(rows.filter((r): r is Extract<LoadedRow, { kind: 'e' }> => r.kind === 'e').map((r) => [r.urn, BigInt(r.data.version)]));
  const states = new Map<string, WriteState>();
  for (const e of entities) {
    const version = versions.get(e.urn) ?? null;
    const lock: EntityLock = version !== null ? 'existed' : e.create ? 'created' : 'missing';
    states.set(e.urn, { lock, version, aspects: new Map(), valueStates: [] });
  }
  fill(states, rows);
  return { states, existing: new Set(versions.keys()) };
}

async function loadRows(db: Queryable, entities: readonly EntityToLock[], aspects: readonly string[], withEntities: boolean, parents: readonly string[] = []): Promise<LoadedRow[]> {
  if (entities.length === 0 && parents.length === 0) return [];
  const live = entities.map((e) => e.urn);
  const withValues = entities.filter((e) => e.withValues).map((e) => e.urn);
  const entityUrns = withEntities ? [...live, ...parents] : [];
  return db.$queryRaw<LoadedRow[]>`
    SELECT 'e' AS kind, e.urn, json_build_object('version', e.version::text) AS data
    FROM entity e WHERE e.urn = ANY(${entityUrns}::text[])
    UNION ALL
    SELECT 'a' AS kind, a.urn, json_build_object('aspect', a.aspect, 'metadata', a.metadata, 'system_metadata', a.system_metadata,
                                                 'created_on', a.created_on, 'created_by', a.created_by) AS data
    FROM aspect a WHERE a.urn = ANY(${live}::text[]) AND a.version = 0 AND a.aspect = ANY(${aspects as string[]}::text[])
    UNION ALL
    SELECT 'v' AS kind, pv.entity_urn, json_build_object('property_urn', pv.property_urn, 'generation', pv.generation::text, 'values', pv."values",
                                                         'current_generation', sp.generation::text, 'removed', sp.removed, 'definition', d.metadata)
    FROM property_value pv
    LEFT JOIN structured_property sp ON sp.urn = pv.property_urn
    LEFT JOIN aspect d ON d.urn = sp.urn AND d.aspect = 'propertyDefinition' AND d.version = 0
    WHERE pv.entity_urn = ANY(${withValues}::text[])`;
}

function fill(states: Map<string, WriteState>, rows: readonly LoadedRow[]): void {
  for (const r of rows) {
    const state = states.get(r.urn);
    if (!state || r.kind === 'e') continue;
    if (r.kind === 'a') {
      const a = r.data;
      state.aspects.set(a.aspect, { aspect: a.aspect, metadata: a.metadata, systemMetadata: a.system_metadata, createdOn: new Date(a.created_on), createdBy: a.created_by });
    } else {
      const v = r.data;
      state.valueStates.push({
        propertyUrn: v.property_urn,
        generation: BigInt(v.generation),
        values: v.values,
        currentGeneration: v.current_generation === null ? null : BigInt(v.current_generation),
        removed: v.removed ?? false,
        definition: v.definition,
      });
    }
  }
}

export interface AspectWrite {
  urn: string;
  entityType: string;
  aspect: string;
  metadata: unknown;
  systemMetadata: Record<string, unknown>;
  createdBy: string;
}

export interface WriteBatch {
  /** At most one write per (urn, aspect). */
  readonly writes: readonly AspectWrite[];
  /** Entities whose property_value rows are replaced by `valueRows` (rows of other entities are left alone). */
  readonly valueRows?: ReadonlyMap<string, { entityType: string; rows: readonly ValueRow[] }>;
  /** Change-log rows without an aspect write (a new entity's key aspect). */
  readonly logOnly?: ReadonlyArray<{ urn: string; entityType: string; aspect: string }>;
}

const EMPTY = Prisma.empty;

/** For an optimistic write: the versions the write was planned against. */
export interface WriteGuard {
  /** Every entity the write touches, with its version as loaded (null: create it). */
  readonly entities: ReadonlyArray<{ urn: string; entityType: string; version: bigint | null }>;
  /** Entities that must still exist (a schema field's dataset); share-locked. */
  readonly parents: readonly string[];
}

/**
 * One statement: copies each current latest to its next history version, upserts the
 * new latest, replaces the property-value index rows, and appends one change-log row
 * per entity (naming the aspects written, in input order): the indexer rebuilds whole
 * documents, so one row per entity and write is all it needs. Returns the change-log
 * id of each entity.
 */
export async function writeAspectsBulk(db: Queryable, batch: WriteBatch): Promise<Map<string, bigint>>;
export async function writeAspectsBulk(db: Queryable, batch: WriteBatch, guard: WriteGuard): Promise<Map<string, bigint> | null>;
export async function writeAspectsBulk(db: Queryable, batch: WriteBatch, guard?: WriteGuard): Promise<Map<string, bigint> | null> {
  const writes = batch.writes.map((w, ord) => ({
    ord,
    urn: w.urn,
    entity_type: w.entityType,
    aspect: w.aspect,
    metadata: w.metadata,
    system_metadata: w.systemMetadata,
    created_by: w.createdBy,
  }));
  const logOnly = (batch.logOnly ?? []).map((l, k) => ({ ord: writes.length + k, urn: l.urn, entity_type: l.entityType, aspect: l.aspect }));
  const replaced = [...(batch.valueRows?.keys() ?? [])];
  const rows = [...(batch.valueRows ?? new Map<string, { entityType: string; rows: readonly ValueRow[] }>())].flatMap(([entityUrn, v]) =>
    v.rows.map((r) => ({ entity_urn: entityUrn, entity_type: v.entityType, property_urn: r.propertyUrn, generation: String(r.generation), vals: r.values })),
  );
  const touched = [...new Set([...writes.map((w) => w.urn), ...logOnly.map((l) => l.urn)])];
  // Without a guard the entities are locked already: bump their versions. With one, bump
  // (or create) each only if it is still at the version the write was planned against;
  // `ok` holds only if all were, and every other part of the statement depends on it.
  const gate = guard
    ? Prisma.sql`guard AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(guard.entities.map((e) => ({ urn: e.urn, entity_type: e.entityType, version: e.version === null ? null : String(e.version) })))}::jsonb)
        AS g(urn text, entity_type text, version bigint)
    ), parents_locked AS (
      SELECT urn FROM entity WHERE urn = ANY(${guard.parents as string[]}::text[]) FOR SHARE
    ), bumped AS (
      UPDATE entity e SET version = e.version + 1 FROM guard g WHERE e.urn = g.urn AND g.version IS NOT NULL AND e.version = g.version
      RETURNING e.urn
    ), created AS (
      INSERT INTO entity (urn, entity_type, version) SELECT urn, entity_type, 1 FROM guard WHERE version IS NULL
      ON CONFLICT (urn) DO NOTHING RETURNING urn
    ), ok AS (
      SELECT (SELECT count(*) FROM bumped) + (SELECT count(*) FROM created) = ${guard.entities.length}
         AND (SELECT count(*) FROM parents_locked) = ${guard.parents.length} AS ok
    ),`
    : Prisma.sql`bumped AS (
      UPDATE entity SET version = version + 1 WHERE urn = ANY(${touched}::text[])
    ), ok AS (SELECT true AS ok),`;
  const values = replaced.length === 0 ? EMPTY : Prisma.sql`, values_input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS p(entity_urn text, entity_type text, property_urn text, generation bigint, vals jsonb)
      WHERE (SELECT ok FROM ok)
    ), values_deleted AS (
      DELETE FROM property_value pv WHERE (SELECT ok FROM ok) AND pv.entity_urn = ANY(${replaced}::text[])
        AND NOT EXISTS (SELECT 1 FROM values_input vi WHERE vi.entity_urn = pv.entity_urn AND vi.property_urn = pv.property_urn)
    ), values_upserted AS (
      INSERT INTO property_value (entity_urn, property_urn, entity_type, generation, "values")
      SELECT entity_urn, property_urn, entity_type, generation, vals FROM values_input
      ON CONFLICT (entity_urn, property_urn) DO UPDATE SET generation = EXCLUDED.generation, "values" = EXCLUDED."values"
    )`;
  const logged = await db.$queryRaw<{ id: bigint; urn: string }[]>`
    WITH ${gate} input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(writes)}::jsonb)
        AS i(ord int, urn text, entity_type text, aspect text, metadata jsonb, system_metadata jsonb, created_by text)
      WHERE (SELECT ok FROM ok)
    ), log_input AS (
      SELECT ord, urn, entity_type, aspect FROM input
      UNION ALL
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(logOnly)}::jsonb) AS l(ord int, urn text, entity_type text, aspect text)
      WHERE (SELECT ok FROM ok)
    ), prev AS (
      SELECT a.urn, a.aspect, a.metadata, a.system_metadata, a.created_on, a.created_by,
             (SELECT MAX(h.version) FROM aspect h WHERE h.urn = a.urn AND h.aspect = a.aspect) AS max_version
      FROM aspect a JOIN input i ON a.urn = i.urn AND a.aspect = i.aspect AND a.version = 0
    ), hist AS (
      INSERT INTO aspect (urn, aspect, version, metadata, system_metadata, created_on, created_by)
      SELECT urn, aspect, max_version + 1, metadata, system_metadata, created_on, created_by FROM prev
    ), latest AS (
      INSERT INTO aspect (urn, aspect, version, metadata, system_metadata, created_on, created_by)
      SELECT urn, aspect, 0, metadata, system_metadata, now(), created_by FROM input
      ON CONFLICT (urn, aspect, version) DO UPDATE
        SET metadata = EXCLUDED.metadata, system_metadata = EXCLUDED.system_metadata,
            created_on = EXCLUDED.created_on, created_by = EXCLUDED.created_by
    )${values}
    INSERT INTO change_log (urn, entity_type, aspect, change_type)
    SELECT urn, min(entity_type), string_agg(aspect, ',' ORDER BY ord), 'UPSERT' FROM log_input GROUP BY urn ORDER BY min(ord)
    RETURNING id, urn`;
  // Every write logs a row: none back means the guard refused the write.
  if (guard && logged.length === 0 && touched.length > 0) return null;
  return new Map(logged.map((r) => [r.urn, r.id]));
}

/** Writes one aspect (and, when given, replaces the entity's value rows); returns its change id. */
export async function writeAspect(tx: Tx, w: AspectWrite & { valueRows?: readonly ValueRow[] }): Promise<bigint> {
  const { valueRows, ...write } = w;
  const ids = await writeAspectsBulk(tx, {
    writes: [write],
    ...(valueRows ? { valueRows: new Map([[w.urn, { entityType: w.entityType, rows: valueRows }]]) } : {}),
  });
  return ids.get(w.urn)!;
}
