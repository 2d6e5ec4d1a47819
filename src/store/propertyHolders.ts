/**
 * What a definition change must know of the values entities hold (domain/compatibility.ts):
 * for each breaking change, how many entities hold values of the property's current
 * generation that it would break, and, for a migration, every held entry. Read under the
 * write's lock on the property's entity (value writers share-lock it), so no value can
 * be written between this count and the change.
 */
import type { BreakingChange, CountedChange } from '../domain/compatibility.js';
import { tryParseEntityType } from '../domain/typeUrns.js';
import type { TypedValue } from '../domain/typedValue.js';
import type { HeldEntry } from '../domain/valueMigration.js';
import type { HolderAnswer, HolderQuestion } from '../domain/writes/aspectRules.js';
import type { Queryable } from './database.js';
import { sql, type Sql } from './sql.js';

/** An entity type URN as the value rows name entity types (`dataset`). */
function typeName(urn: string): string {
  return tryParseEntityType(urn, true)?.name ?? urn;
}

/** The rows (alias pv) whose values the change breaks. */
function broken(change: BreakingChange): Sql {
  switch (change.kind) {
    case 'valueType':
      return sql`true`;
    case 'cardinality':
      return sql`jsonb_array_length(pv."values") > 1`;
    case 'allowedValueRemoved':
      return sql`pv."values" @> ${JSON.stringify([change.value])}::jsonb`;
    case 'allowedValuesAdded':
      return sql`NOT (pv."values" <@ ${JSON.stringify(change.allowed)}::jsonb)`;
    case 'entityTypeRemoved':
      return sql`pv.entity_type = ${typeName(change.entityType)}`;
    case 'allowedTypesRestricted':
    case 'allowedTypeRemoved':
      return sql`EXISTS (SELECT 1 FROM jsonb_array_elements(pv."values") v
        WHERE NOT (split_part(v->>'string', ':', 3) = ANY(${change.allowed.map(typeName)}::text[])))`;
  }
}

export async function countHolders(db: Queryable, question: HolderQuestion): Promise<HolderAnswer> {
  const counted: CountedChange[] = [];
  for (const change of question.changes) {
    const [row] = await db.query<{ n: bigint }>(sql`
      SELECT count(*) AS n FROM property_value pv
      WHERE pv.property_urn = ${question.propertyUrn} AND pv.generation = ${question.generation} AND ${broken(change)}`);
    counted.push({ change, holders: Number(row?.n ?? 0) });
  }
  if (!question.entries) return { counted, entries: null };
  const rows = await db.query<{ entity_urn: string; entity_type: string; values: TypedValue[] }>(sql`
    SELECT pv.entity_urn, pv.entity_type, pv."values" FROM property_value pv
    WHERE pv.property_urn = ${question.propertyUrn} AND pv.generation = ${question.generation}
    ORDER BY pv.entity_urn`);
  const entries: HeldEntry[] = rows.map((r) => ({ entityUrn: r.entity_urn, entityType: r.entity_type, values: r.values }));
  return { counted, entries };
}
