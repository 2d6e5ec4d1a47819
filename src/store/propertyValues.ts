/**
 * The relational index of property values (table property_value): one row per
 * entity and property, tagged with the definition generation it was written under.
 * It answers "who holds this property" for cleanup jobs and "which values are
 * visible" for reads and search documents, without scanning aspects.
 */
import type { TypedValue } from '../domain/typedValue.js';
import type { HeldValue } from '../domain/writes/writeState.js';
import { activeMigrationOf } from '../domain/valueMigration.js';
import type { Queryable } from './database.js';
import type { PropertyValueModel } from './generated/prisma/models.js';
import { sql } from './sql.js';

/** The entities' value rows with the state of their property, for visibility decisions. */
export async function valuesOfEntities(db: Queryable, entityUrns: readonly string[]): Promise<Map<string, HeldValue[]>> {
  const out = new Map<string, HeldValue[]>();
  if (entityUrns.length === 0) return out;
  const rows = await db.query<Pick<PropertyValueModel, 'entityUrn' | 'propertyUrn' | 'generation' | 'values'> & { currentGeneration: bigint | null; removed: boolean | null; migration: unknown }>(sql`
    SELECT pv.entity_urn AS "entityUrn", pv.property_urn AS "propertyUrn", pv.generation, pv."values", sp.generation AS "currentGeneration", sp.removed, sp.migration
    FROM property_value pv LEFT JOIN structured_property sp ON sp.urn = pv.property_urn
    WHERE pv.entity_urn = ANY(${entityUrns}::text[])`);
  for (const r of rows) {
    const list = out.get(r.entityUrn) ?? [];
    list.push({ propertyUrn: r.propertyUrn, generation: r.generation, values: r.values as TypedValue[], currentGeneration: r.currentGeneration, removed: r.removed ?? false, migration: activeMigrationOf(r.migration) });
    out.set(r.entityUrn, list);
  }
  return out;
}

/**
 * Entities holding values of `propertyUrn` that are no longer visible: written under
 * another generation than the property's current one (any, when the property is gone),
 * but for the generation a migration in progress reads its values through.
 */
const stale = (propertyUrn: string) => sql`
  FROM property_value pv LEFT JOIN structured_property sp ON sp.urn = pv.property_urn
  WHERE pv.property_urn = ${propertyUrn}
    AND (sp.urn IS NULL OR (pv.generation <> sp.generation AND pv.generation IS DISTINCT FROM (sp.migration->>'fromGeneration')::bigint))`;

/**
 * Up to `limit` stale holders after `after`, in urn order, read along the index on
 * (property_urn, entity_urn). The cleanup pages on from the last urn rather than from
 * the start: the rows it removed stay in the index as dead entries until a vacuum, and
 * a page from the start would walk past all of them each time.
 */
export async function staleHolders(db: Queryable, propertyUrn: string, after: string, limit: number): Promise<{ entityUrn: string; entityType: string }[]> {
  return db.query<Pick<PropertyValueModel, 'entityUrn' | 'entityType'>>(sql`
    SELECT pv.entity_urn AS "entityUrn", pv.entity_type AS "entityType" ${stale(propertyUrn)} AND pv.entity_urn > ${after} ORDER BY pv.entity_urn LIMIT ${limit}`);
}

export async function countStaleHolders(db: Queryable, propertyUrn: string): Promise<number> {
  const rows = await db.query<{ n: bigint }>(sql`SELECT COUNT(*) AS n ${stale(propertyUrn)}`);
  return Number(rows[0]?.n ?? 0);
}

/** Entities still holding values under a migration's older generation, in urn order from `after`. */
export async function migratingHolders(db: Queryable, propertyUrn: string, fromGeneration: bigint, after: string, limit: number): Promise<string[]> {
  const rows = await db.query<{ entity_urn: string }>(sql`
    SELECT entity_urn FROM property_value WHERE property_urn = ${propertyUrn} AND generation = ${fromGeneration} AND entity_urn > ${after}
    ORDER BY entity_urn LIMIT ${limit}`);
  return rows.map((r) => r.entity_urn);
}

export async function countMigratingHolders(db: Queryable, propertyUrn: string, fromGeneration: bigint): Promise<number> {
  const rows = await db.query<{ n: bigint }>(sql`SELECT COUNT(*) AS n FROM property_value WHERE property_urn = ${propertyUrn} AND generation = ${fromGeneration}`);
  return Number(rows[0]?.n ?? 0);
}

/** The values of one property that the entities hold under its current generation (what a sort on it orders by). */
export async function currentValuesOf(db: Queryable, propertyUrn: string, generation: bigint, entityUrns: readonly string[]): Promise<Map<string, TypedValue[]>> {
  const out = new Map<string, TypedValue[]>();
  if (entityUrns.length === 0) return out;
  const rows = await db.query<{ entityUrn: string; values: unknown }>(sql`
    SELECT entity_urn AS "entityUrn", "values" FROM property_value
    WHERE property_urn = ${propertyUrn} AND generation = ${generation} AND entity_urn = ANY(${entityUrns}::text[])`);
  for (const r of rows) out.set(r.entityUrn, r.values as TypedValue[]);
  return out;
}
