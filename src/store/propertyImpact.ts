/**
 * What removing a property's values would remove (issue #29): the entities holding
 * values of it that readers see, how many values they hold, and those entities by
 * type. Counted from the value index (property_value), generation-aware: only rows
 * written under the property's current generation count, as older ones are already
 * hidden and queued for cleanup. A soft-deleted property's values count: they come back
 * when it is restored, so a change that drops them drops something.
 */
import type { Queryable } from './database.js';
import { sql } from './sql.js';

export interface PropertyImpact {
  /** Entities holding visible values of the property. */
  readonly entities: number;
  /** The values they hold (a value row holds one or more). */
  readonly values: number;
  /** Entities by entity type (`dataset`, `schemaField`, ...). */
  readonly byEntityType: Record<string, number>;
}

export async function propertyImpact(db: Queryable, propertyUrn: string): Promise<PropertyImpact> {
  const rows = await db.query<{ entity_type: string; entities: number; values: number }>(sql`
    SELECT pv.entity_type, count(*)::int AS entities,
           sum(CASE WHEN jsonb_typeof(pv."values") = 'array' THEN jsonb_array_length(pv."values") ELSE 1 END)::int AS values
    FROM property_value pv JOIN structured_property sp ON sp.urn = pv.property_urn AND sp.generation = pv.generation
    WHERE pv.property_urn = ${propertyUrn}
    GROUP BY pv.entity_type ORDER BY pv.entity_type`);
  return {
    entities: rows.reduce((n, r) => n + r.entities, 0),
    values: rows.reduce((n, r) => n + r.values, 0),
    byEntityType: Object.fromEntries(rows.map((r) => [r.entity_type, r.entities])),
  };
}
