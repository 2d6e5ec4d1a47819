/**
 * The registry of live structured property definitions (table structured_property),
 * kept in step with their propertyDefinition and status aspects by the write path, in
 * the same statement as the aspect (writeApply.ts, deletes.ts). Read through the view
 * registered_property, the one place the registry is joined with its definitions.
 */
import type { Queryable } from './database.js';
import type { RegisteredPropertyModel, StructuredPropertyModel } from './generated/prisma/models.js';
import { raw, sql } from './sql.js';

/** A registered property with its stored propertyDefinition aspect (`definition`) and its entity's write counter. */
export type RegisteredProperty = Readonly<RegisteredPropertyModel>;

/** The view's columns, named as the model names them. */
const REGISTERED = raw(
  'urn, qualified_name AS "qualifiedName", search_field AS "searchField", value_type AS "valueType", version, generation, removed, definition, entity_version AS "entityVersion", migration, lineage_started_on AS "lineageStartedOn"',
);

export async function findProperties(db: Queryable, urns: readonly string[]): Promise<Map<string, RegisteredProperty>> {
  if (urns.length === 0) return new Map();
  const rows = await db.query<RegisteredProperty>(sql`SELECT ${REGISTERED} FROM registered_property WHERE urn = ANY(${urns}::text[])`);
  return new Map(rows.map((r) => [r.urn, r]));
}

export async function findProperty(db: Queryable, urn: string): Promise<RegisteredProperty | undefined> {
  return (await findProperties(db, [urn])).get(urn);
}

/** Looks properties up by their search field name (qualified name with `.` as `_`). */
export async function findPropertiesBySearchField(db: Queryable, fields: readonly string[]): Promise<Map<string, RegisteredProperty>> {
  if (fields.length === 0) return new Map();
  const rows = await db.query<RegisteredProperty>(sql`SELECT ${REGISTERED} FROM registered_property WHERE search_field = ANY(${fields}::text[])`);
  return new Map(rows.map((r) => [r.searchField, r]));
}

export async function listProperties(db: Queryable, afterUrn: string | null, limit: number): Promise<RegisteredProperty[]> {
  return db.query<RegisteredProperty>(sql`
    SELECT ${REGISTERED} FROM registered_property
    WHERE ${afterUrn}::text IS NULL OR urn > ${afterUrn}
    ORDER BY urn LIMIT ${limit}`);
}

/** Reads the registry's change counter (bumped by a trigger on every change to it). */
export type RegistryEpochReader = () => Promise<bigint>;

/** The change-counter reader: a prepared statement of its own, as it runs beside many searches. */
export function registryEpochReader(db: Queryable): RegistryEpochReader {
  const statement = { name: 'registry_epoch', text: 'SELECT epoch FROM registry_epoch WHERE id = 1', values: [] };
  return async () => (await db.query<{ epoch: bigint }>(statement))[0]?.epoch ?? 0n;
}

/** The names of the live (not soft-deleted) properties. */
export async function listSearchFields(db: Queryable): Promise<Array<Pick<StructuredPropertyModel, 'searchField' | 'qualifiedName'>>> {
  return db.query(sql`
    SELECT search_field AS "searchField", qualified_name AS "qualifiedName" FROM structured_property WHERE NOT removed ORDER BY search_field`);
}
