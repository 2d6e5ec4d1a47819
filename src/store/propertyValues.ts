/**
 * The relational index of property values (table property_value): one row per
 * entity and property, tagged with the definition generation it was written under.
 * It answers "who holds this property" for cleanup jobs and "which values are
 * visible" for reads and search documents, without scanning aspects.
 */
import type { TypedValue } from '../domain/typedValue.js';
import type { HeldValue } from '../domain/writes/writeState.js';
import type { Queryable } from './database.js';

/** The entities' value rows with the state of their property, for visibility decisions. */
export async function valuesOfEntities(db: Queryable, entityUrns: readonly string[]): Promise<Map<string, HeldValue[]>> {
  const out = new Map<string, HeldValue[]>();
  if (entityUrns.length === 0) return out;
  const rows = await db.$queryRaw<{ entity_urn: string; property_urn: string; generation: bigint; values: TypedValue[]; current_generation: bigint | null; removed: boolean | null }[]>`
    SELECT pv.entity_urn, pv.property_urn, pv.generation, pv."values", sp.generation AS current_generation, sp.removed
    FROM property_value pv LEFT JOIN structured_property sp ON sp.urn = pv.property_urn
    WHERE pv.entity_urn = ANY(${entityUrns as string[]}::text[])`;
  for (const r of rows) {
    const list = out.get(r.entity_urn) ?? [];
    list.push({ propertyUrn: r.property_urn, generation: r.generation, values: r.values, currentGeneration: r.current_generation, removed: r.removed ?? false });
    out.set(r.entity_urn, list);
  }
  return out;
}

/**
 * Entities holding values of `propertyUrn` that are no longer visible: written under
 * another generation than `currentGeneration` (null: the property is gone).
 */
export async function staleHolders(db: Queryable, propertyUrn: string, currentGeneration: bigint | null, limit: number): Promise<{ entityUrn: string; entityType: string }[]> {
  const rows = currentGeneration === null
    ? await db.$queryRaw<{ entity_urn: string; entity_type: string }[]>`
        SELECT entity_urn, entity_type FROM property_value WHERE property_urn = ${propertyUrn} ORDER BY entity_urn LIMIT ${limit}`
    : await db.$queryRaw<{ entity_urn: string; entity_type: string }[]>`
        SELECT entity_urn, entity_type FROM property_value WHERE property_urn = ${propertyUrn} AND generation <> ${currentGeneration}
        ORDER BY entity_urn LIMIT ${limit}`;
  return rows.map((r) => ({ entityUrn: r.entity_urn, entityType: r.entity_type }));
}

export async function countStaleHolders(db: Queryable, propertyUrn: string, currentGeneration: bigint | null): Promise<number> {
  const rows = currentGeneration === null
    ? await db.$queryRaw<{ n: bigint }[]>`SELECT COUNT(*) AS n FROM property_value WHERE property_urn = ${propertyUrn}`
    : await db.$queryRaw<{ n: bigint }[]>`SELECT COUNT(*) AS n FROM property_value WHERE property_urn = ${propertyUrn} AND generation <> ${currentGeneration}`;
  return Number(rows[0]?.n ?? 0);
}
