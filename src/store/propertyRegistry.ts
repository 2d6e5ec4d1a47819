/**
 * The registry of live structured property definitions (table structured_property),
 * kept in step with their propertyDefinition and status aspects by the write path, in
 * the same statement as the aspect (writeApply.ts, deletes.ts).
 */
import type { DriverRead, Queryable } from './database.js';

export interface RegisteredProperty {
  readonly urn: string;
  readonly qualifiedName: string;
  readonly searchField: string;
  readonly valueType: string;
  readonly version: string | null;
  readonly generation: bigint;
  readonly removed: boolean;
  /** The stored propertyDefinition aspect. */
  readonly definition: unknown;
}

interface Row {
  urn: string;
  qualified_name: string;
  search_field: string;
  value_type: string;
  version: string | null;
  generation: bigint;
  removed: boolean;
  definition: unknown;
}

function toRegistered(r: Row): RegisteredProperty {
  return {
    urn: r.urn,
    qualifiedName: r.qualified_name,
    searchField: r.search_field,
    valueType: r.value_type,
    version: r.version,
    generation: r.generation,
    removed: r.removed,
    definition: r.definition,
  };
}

export async function findProperties(db: Queryable, urns: readonly string[]): Promise<Map<string, RegisteredProperty>> {
  if (urns.length === 0) return new Map();
  const rows = await db.$queryRaw<Row[]>`
    SELECT sp.urn, sp.qualified_name, sp.search_field, sp.value_type, sp.version, sp.generation, sp.removed, a.metadata AS definition
    FROM structured_property sp
    JOIN aspect a ON a.urn = sp.urn AND a.aspect = 'propertyDefinition' AND a.version = 0
    WHERE sp.urn = ANY(${urns as string[]}::text[])`;
  return new Map(rows.map((r) => [r.urn, toRegistered(r)]));
}

export async function findProperty(db: Queryable, urn: string): Promise<RegisteredProperty | undefined> {
  return (await findProperties(db, [urn])).get(urn);
}

/** Looks properties up by their search field name (qualified name with `.` as `_`). */
export async function findPropertiesBySearchField(db: Queryable, fields: readonly string[]): Promise<Map<string, RegisteredProperty>> {
  if (fields.length === 0) return new Map();
  const rows = await db.$queryRaw<Row[]>`
    SELECT sp.urn, sp.qualified_name, sp.search_field, sp.value_type, sp.version, sp.generation, sp.removed, a.metadata AS definition
    FROM structured_property sp
    JOIN aspect a ON a.urn = sp.urn AND a.aspect = 'propertyDefinition' AND a.version = 0
    WHERE sp.search_field = ANY(${fields as string[]}::text[])`;
  return new Map(rows.map((r) => [r.search_field, toRegistered(r)]));
}

export async function listProperties(db: Queryable, afterUrn: string | null, limit: number): Promise<RegisteredProperty[]> {
  const rows = await db.$queryRaw<Row[]>`
    SELECT sp.urn, sp.qualified_name, sp.search_field, sp.value_type, sp.version, sp.generation, sp.removed, a.metadata AS definition
    FROM structured_property sp
    JOIN aspect a ON a.urn = sp.urn AND a.aspect = 'propertyDefinition' AND a.version = 0
    WHERE ${afterUrn}::text IS NULL OR sp.urn > ${afterUrn}
    ORDER BY sp.urn LIMIT ${limit}`;
  return rows.map(toRegistered);
}

/** Reads the registry's change counter (bumped by a trigger on every change to it). */
export type RegistryEpochReader = () => Promise<bigint>;

/**
 * The change-counter reader over the driver itself: it runs beside many searches, and
 * through Prisma the same query costs about four times as much.
 */
export function registryEpochReader(read: DriverRead): RegistryEpochReader {
  const statement = { name: 'registry_epoch', text: 'SELECT epoch::text AS epoch FROM registry_epoch WHERE id = 1' };
  return async () => {
    const rows = await read(statement, []);
    return BigInt(String(rows[0]?.epoch ?? '0'));
  };
}

/** The names of the live (not soft-deleted) properties. */
export async function listSearchFields(db: Queryable): Promise<Array<{ searchField: string; qualifiedName: string }>> {
  const rows = await db.$queryRaw<{ search_field: string; qualified_name: string }[]>`
    SELECT search_field, qualified_name FROM structured_property WHERE NOT removed ORDER BY search_field`;
  return rows.map((r) => ({ searchField: r.search_field, qualifiedName: r.qualified_name }));
}
