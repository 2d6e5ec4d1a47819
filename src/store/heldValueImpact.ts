/**
 * The values an entity holds, with those of its children (a dataset's schema fields),
 * counted as a value impact: what hard-deleting it removes of the value index. Only
 * values readers see count (written under their property's current generation).
 */
import type { ValueImpact } from '../domain/valueImpact.js';
import type { Queryable } from './database.js';
import { sql } from './sql.js';

export async function heldValueImpact(db: Queryable, entityUrn: string): Promise<ValueImpact> {
  const children = `urn:li:schemaField:(${entityUrn},`;
  const rows = await db.query<{ entity_type: string; entities: number; values: number }>(sql`
    SELECT pv.entity_type, count(DISTINCT pv.entity_urn)::int AS entities,
           sum(CASE WHEN jsonb_typeof(pv."values") = 'array' THEN jsonb_array_length(pv."values") ELSE 1 END)::int AS values
    FROM property_value pv JOIN structured_property sp ON sp.urn = pv.property_urn AND sp.generation = pv.generation
    WHERE pv.entity_urn = ${entityUrn} OR starts_with(pv.entity_urn, ${children})
    GROUP BY pv.entity_type ORDER BY pv.entity_type`);
  return {
    entities: rows.reduce((n, r) => n + r.entities, 0),
    values: rows.reduce((n, r) => n + r.values, 0),
    byEntityType: Object.fromEntries(rows.map((r) => [r.entity_type, r.entities])),
  };
}
