/**
 * Hard deletes, inside a transaction: lock what a delete removes and read which
 * aspects it has, then apply the delete decision (domain/writes/entityDelete.ts) in one
 * statement: entity rows (their aspects cascade), aspects, value rows, registry rows,
 * jobs and one DELETE change-log row per entity or aspect removed.
 */
import type { DeleteDecision, EntityToDelete } from '../domain/writes/entityDelete.js';
import type { Tx } from './database.js';
import type { EntityModel } from './generated/prisma/models.js';
import { EMPTY, sql } from './sql.js';
import { activeTraceparent } from '../telemetry/tracing.js';

/**
 * Locks the entity (and, when its type has children, such as a dataset's schema fields,
 * those after it: writers to a child share-lock its parent first) and reads the aspects
 * each has. Children come first; empty when the entity does not exist.
 */
export async function lockForDelete(tx: Tx, entity: { urn: string; entityType: string }, options: { childType?: string }): Promise<EntityToDelete[]> {
  const found = await tx.query<Pick<EntityModel, 'urn'>>(sql`SELECT urn FROM entity WHERE urn = ${entity.urn} FOR UPDATE`);
  if (found.length === 0) return [];
  const childType = options.childType;
  const prefix = `urn:li:${childType}:(${entity.urn},`;
  const fields = childType
    ? await tx.query<Pick<EntityModel, 'urn'>>(sql`
        SELECT urn FROM entity WHERE entity_type = ${childType} AND left(urn, ${prefix.length}) = ${prefix} ORDER BY urn FOR UPDATE`)
    : [];
  const all = [...fields.map((f) => ({ urn: f.urn, entityType: childType! })), entity];
  const aspects = await tx.query<{ urn: string; aspect: string }>(sql`
    SELECT urn, aspect FROM aspect WHERE urn = ANY(${all.map((e) => e.urn)}::text[]) AND version = 0`);
  return all.map((e) => ({ ...e, aspects: aspects.filter((a) => a.urn === e.urn).map((a) => a.aspect) }));
}

/** Applies a delete decision by `author` (its lifecycle events name them); returns the change-log ids, in order. */
export async function applyDeletes(tx: Tx, d: DeleteDecision, author: { readonly actor: string; readonly via: string | null }): Promise<bigint[]> {
  if (d.entities.length + d.aspects.length === 0) return [];
  const entities = d.entities.map((e, ord) => ({ ord, urn: e.urn, entity_type: e.entityType }));
  const aspects = d.aspects.map((a, k) => ({ ord: entities.length + k, urn: a.urn, entity_type: a.entityType, aspect: a.aspect }));
  const deletedProperties = d.registry.filter((r) => r.change === 'delete').map((r) => r.urn);
  const restoredProperties = d.registry.filter((r) => r.change === 'restore').map((r) => r.urn);
  const registry = d.registry.length === 0 ? EMPTY : sql`, registry_deleted AS (
      DELETE FROM structured_property WHERE urn = ANY(${deletedProperties}::text[])
    ), registry_restored AS (
      UPDATE structured_property SET removed = false WHERE urn = ANY(${restoredProperties}::text[])
    )`;
  const events = d.events.map((e) => ({ urn: e.urn, entity_type: e.entityType, event: e.note.event, actor: author.actor, via: author.via, detail: e.note.detail ?? null }));
  const eventsAdded = events.length === 0 ? EMPTY : sql`, events_added AS (
      INSERT INTO lifecycle_event (urn, entity_type, event, actor, via, detail)
      SELECT urn, entity_type, event, actor, via, detail FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb)
        AS v(urn text, entity_type text, event text, actor text, via text, detail jsonb)
    )`;
  const jobs = d.jobs.length === 0 ? EMPTY : sql`, jobs_added AS (
      INSERT INTO job (kind, payload) SELECT kind, payload FROM jsonb_to_recordset(${JSON.stringify(d.jobs)}::jsonb) AS j(kind text, payload jsonb)
    )`;
  // Rows named by arrays (`urn = ANY`), whose length the planner counts; it takes a
  // jsonb_to_recordset for 100 rows and may read a whole table to join them (writeApply.ts).
  const aspectUrns = [...new Set(aspects.map((a) => a.urn))];
  const rows = await tx.query<{ id: bigint }>(sql`
    WITH gone_entities AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(entities)}::jsonb) AS g(ord int, urn text, entity_type text)
    ), gone_aspects AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(aspects)}::jsonb) AS g(ord int, urn text, entity_type text, aspect text)
    ), entities_deleted AS (
      DELETE FROM entity WHERE urn = ANY(${entities.map((e) => e.urn)}::text[])
    ), aspects_deleted AS (
      DELETE FROM aspect a USING gone_aspects g WHERE a.urn = ANY(${aspectUrns}::text[]) AND a.urn = g.urn AND a.aspect = g.aspect
    ), bumped AS (
      -- Optimistic writers that read the entity before this delete must not succeed after it.
      UPDATE entity SET version = version + 1 WHERE urn = ANY(${aspectUrns}::text[])
    ), values_deleted AS (
      DELETE FROM property_value WHERE entity_urn = ANY(${[...d.entities.map((e) => e.urn), ...d.valueRowsOf]}::text[])
    )${registry}${jobs}${eventsAdded}, logged AS (
      INSERT INTO change_log (urn, entity_type, aspect, change_type, trace_parent)
      SELECT urn, entity_type, aspect, 'DELETE', ${activeTraceparent()}::text FROM (
        SELECT ord, urn, entity_type, NULL::text AS aspect FROM gone_entities
        UNION ALL SELECT ord, urn, entity_type, aspect FROM gone_aspects
      ) x ORDER BY ord
      RETURNING id
    )
    SELECT id FROM logged ORDER BY id`);
  return rows.map((r) => r.id);
}
