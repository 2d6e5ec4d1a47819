/**
 * The relational index of property values (table property_value): one row per
 * entity and property, tagged with the definition generation it was written under.
 * It answers "who holds this property" for cleanup jobs and "which values are
 * visible" for reads and search documents, without scanning aspects.
 */
import type { TypedValue } from '../domain/typedValue.js';
import type { HeldValue } from '../domain/writes/writeState.js';
import type { Queryable } from './database.js';
import type { PropertyValueModel } from './generated/prisma/models.js';
import { sql } from './sql.js';

/** The entities' value rows with the state of their property, for visibility decisions. */
export async function valuesOfEntities(db: Queryable, entityUrns: readonly string[]): Promise<Map<string, HeldValue[]>> {
  const out = new Map<string, HeldValue[]>();
  if (entityUrns.length === 0) return out;
  const rows = await db.query<Pick<PropertyValueModel, 'entityUrn' | 'propertyUrn' | 'generation' | 'values'> & { currentGeneration: bigint | null; removed: boolean | null }>(sql`
    SELECT pv.entity_urn AS "entityUrn", pv.property_urn AS "propertyUrn", pv.generation, pv."values", sp.generation AS "currentGeneration", sp.removed
    FROM property_value pv LEFT JOIN structured_property sp ON sp.urn = pv.property_urn
    WHERE pv.entity_urn = ANY(${entityUrns}::text[])`);
  for (const r of rows) {
    const list = out.get(r.entityUrn) ?? [];
    list.push({ propertyUrn: r.propertyUrn, generation: r.generation, values: r.values as TypedValue[], currentGeneration: r.currentGeneration, removed: r.removed ?? false });
    out.set(r.entityUrn, list);
  }
  return out;
}

/**
 * Entities holding values of `propertyUrn` that are no longer visible: written under
 * another generation than `currentGeneration` (null: the property is gone).
 */
export async function staleHolders(db: Queryable, propertyUrn: string, currentGeneration: bigint | null, limit: number): Promise<{ entityUrn: string; entityType: string }[]> {
  const columns = sql`entity_urn AS "entityUrn", entity_type AS "entityType"`;
  return currentGeneration === null
    ? db.query<Pick<PropertyValueModel, 'entityUrn' | 'entityType'>>(sql`
        SELECT ${columns} FROM property_value WHERE property_urn = ${propertyUrn} ORDER BY entity_urn LIMIT ${limit}`)
    : db.query<Pick<PropertyValueModel, 'entityUrn' | 'entityType'>>(sql`
        SELECT ${columns} FROM property_value WHERE property_urn = ${propertyUrn} AND generation <> ${currentGeneration}
        ORDER BY entity_urn LIMIT ${limit}`);
}

export async function countStaleHolders(db: Queryable, propertyUrn: string, currentGeneration: bigint | null): Promise<number> {
  const rows = currentGeneration === null
    ? await db.query<{ n: bigint }>(sql`SELECT COUNT(*) AS n FROM property_value WHERE property_urn = ${propertyUrn}`)
    : await db.query<{ n: bigint }>(sql`SELECT COUNT(*) AS n FROM property_value WHERE property_urn = ${propertyUrn} AND generation <> ${currentGeneration}`);
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
