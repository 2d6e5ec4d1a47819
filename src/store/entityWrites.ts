/**
 * The write side of aspects, set-based so that a batch of many entities costs a few
 * statements rather than a few per entity: lock (and create) the entities, load what
 * the write needs, then write every aspect, its history version, its change-log row
 * and the property-value index in one statement.
 */
import type { Tx } from './database.js';
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
  const locked = await tx.$queryRaw<{ urn: string }[]>`SELECT urn FROM entity WHERE urn = ANY(${all}::text[]) ORDER BY urn FOR UPDATE`;
  const existing = new Set(locked.map((r) => r.urn));
  const live = all.filter((u) => existing.has(u));
  const withValues = entities.filter((e) => e.withValues && existing.has(e.urn)).map((e) => e.urn);
  const rows = live.length === 0 ? [] : await tx.$queryRaw<LoadedRow[]>`
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
  const out = new Map<string, WriteState>();
  for (const e of entities) {
    out.set(e.urn, { lock: created.has(e.urn) ? 'created' : existing.has(e.urn) ? 'existed' : 'missing', aspects: new Map(), valueStates: [] });
  }
  for (const r of rows) {
    const state = out.get(r.urn)!;
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
  return out;
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

/**
 * One statement: copies each current latest to its next history version, upserts the
 * new latest, replaces the property-value index rows, and appends one change-log row
 * per entity (naming the aspects written, in input order): the indexer rebuilds whole
 * documents, so one row per entity and write is all it needs. Returns the change-log
 * id of each entity.
 */
export async function writeAspectsBulk(tx: Tx, batch: WriteBatch): Promise<Map<string, bigint>> {
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
  const values = replaced.length === 0 ? EMPTY : Prisma.sql`, values_input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS p(entity_urn text, entity_type text, property_urn text, generation bigint, vals jsonb)
    ), values_deleted AS (
      DELETE FROM property_value pv WHERE pv.entity_urn = ANY(${replaced}::text[])
        AND NOT EXISTS (SELECT 1 FROM values_input vi WHERE vi.entity_urn = pv.entity_urn AND vi.property_urn = pv.property_urn)
    ), values_upserted AS (
      INSERT INTO property_value (entity_urn, property_urn, entity_type, generation, "values")
      SELECT entity_urn, property_urn, entity_type, generation, vals FROM values_input
      ON CONFLICT (entity_urn, property_urn) DO UPDATE SET generation = EXCLUDED.generation, "values" = EXCLUDED."values"
    )`;
  const logged = await tx.$queryRaw<{ id: bigint; urn: string }[]>`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(writes)}::jsonb)
        AS i(ord int, urn text, entity_type text, aspect text, metadata jsonb, system_metadata jsonb, created_by text)
    ), log_input AS (
      SELECT ord, urn, entity_type, aspect FROM input
      UNION ALL
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(logOnly)}::jsonb) AS l(ord int, urn text, entity_type text, aspect text)
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
