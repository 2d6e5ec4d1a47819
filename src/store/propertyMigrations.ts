/**
 * The end of a migration (domain/valueMigration.ts): the registry forgets it once no
 * value is left under the generation it migrated from, checked in the same statement,
 * with its lifecycle event. A value write cannot add one meanwhile: writes go to the
 * current generation.
 */
import type { Queryable } from './database.js';
import { sql } from './sql.js';

/** Ends the migration from `fromGeneration`; true when it ended now. */
export async function finishMigration(db: Queryable, propertyUrn: string, fromGeneration: bigint, author: { readonly actor: string; readonly via: string | null }, detail: Record<string, number>): Promise<boolean> {
  const rows = await db.query<{ urn: string }>(sql`
    WITH finished AS (
      UPDATE structured_property SET migration = NULL
      WHERE urn = ${propertyUrn} AND (migration->>'fromGeneration')::bigint = ${fromGeneration}
        AND NOT EXISTS (SELECT 1 FROM property_value WHERE property_urn = ${propertyUrn} AND generation = ${fromGeneration})
      RETURNING urn
    ), noted AS (
      INSERT INTO lifecycle_event (urn, entity_type, event, actor, via, detail)
      SELECT urn, 'structuredProperty', 'migrationFinished', ${author.actor}, ${author.via}, ${JSON.stringify(detail)}::jsonb FROM finished
    )
    SELECT urn FROM finished`);
  return rows.length > 0;
}

/** The migration in progress of a property (its JSON), or null. */
export async function migrationOf(db: Queryable, propertyUrn: string): Promise<unknown> {
  const rows = await db.query<{ migration: unknown }>(sql`SELECT migration FROM structured_property WHERE urn = ${propertyUrn}`);
  return rows[0]?.migration ?? null;
}
