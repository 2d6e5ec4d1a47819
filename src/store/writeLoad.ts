/**
 * The one loader of the write path: everything a batch of writes relies on (entity
 * versions, the aspects named, value rows, registry records, search field owners) in
 * one query, the same SQL on both paths:
 * - optimistic, without a transaction: the query alone, no lock; the guarded statement
 *   (writeApply.ts) then refuses if any of it moved;
 * - locked, inside a transaction: share-lock the parents, create and lock the entities
 *   (in URN order, so concurrent batches cannot deadlock), then the query. It is a
 *   statement of its own, after the locks: under READ COMMITTED a statement that waited
 *   for a row lock reads everything else with the snapshot it started with, so reading
 *   in the locking statement would lose concurrent updates.
 */
import type { PropertyDefinition } from '../domain/propertyDefinition.js';
import type { TypedValue } from '../domain/typedValue.js';
import { activeMigrationOf } from '../domain/valueMigration.js';
import type { CurrentAspect, EntityState, Existence, HeldValue, PropertyRecord, RegistryState } from '../domain/writes/writeState.js';
import type { Db, Queryable, Tx } from './database.js';
import type { EntityModel } from './generated/prisma/models.js';
import { sql } from './sql.js';

/** What the write path runs on. */
export interface WriteStore {
  readonly db: Db;
}

/** Where a write runs: on its own (one guarded statement) or in a transaction holding the entity locks. */
export type WriteTarget = ({ readonly kind: 'optimistic' } & WriteStore) | { readonly kind: 'locked'; readonly tx: Tx };

export function queryableOf(target: WriteTarget): Queryable {
  return target.kind === 'optimistic' ? target.db : target.tx;
}

export interface EntityToLoad {
  readonly urn: string;
  readonly entityType: string;
  /** Whether the write may create the entity (when its parent, if any, exists). */
  readonly create: boolean;
  /** Load its value rows (and their properties' records). */
  readonly values: boolean;
  /** A schema field's dataset, which must exist. */
  readonly parent: string | null;
}

export interface LoadRequest {
  readonly entities: readonly EntityToLoad[];
  /** Aspect names to load, of every entity. */
  readonly aspects: readonly string[];
  /** Registry records to load (those of held values come anyway). */
  readonly properties: readonly string[];
  readonly searchFields: readonly string[];
}

export interface WriteState extends RegistryState {
  readonly entities: ReadonlyMap<string, EntityState>;
}

type LoadedRow =
  | { kind: 'entityVersion'; urn: string; data: { version: string } }
  | { kind: 'aspect'; urn: string; data: { aspect: string; metadata: unknown; system_metadata: Record<string, unknown> | null } }
  | { kind: 'heldValue'; urn: string; data: { property_urn: string; generation: string; values: TypedValue[]; current_generation: string | null; removed: boolean | null; migration: unknown } }
  | { kind: 'property'; urn: string; data: { generation: string; removed: boolean; definition: PropertyDefinition; entity_version: string; migration: unknown } }
  | { kind: 'searchFieldOwner'; urn: string; data: { search_field: string } };

function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

export async function loadWriteState(target: WriteTarget, request: LoadRequest): Promise<WriteState> {
  const parents = sortedUnique(request.entities.flatMap((e) => (e.parent === null ? [] : [e.parent])));
  if (target.kind === 'optimistic') {
    const rows = await loadRows(target.db, request, [...request.entities.map((e) => e.urn), ...parents]);
    const versions = entityVersions(rows);
    return stateOf(request, rows, (e) => {
      const version = versions.get(e.urn) ?? null;
      return { existence: version !== null ? 'existed' : e.create ? 'created' : 'missing', version, parentExists: e.parent !== null && versions.has(e.parent) };
    });
  }
  const tx = target.tx;
  const liveParents = new Set(
    parents.length === 0 ? [] : (await tx.query<Pick<EntityModel, 'urn'>>(sql`SELECT urn FROM entity WHERE urn = ANY(${parents}::text[]) ORDER BY urn FOR SHARE`)).map((r) => r.urn),
  );
  const toCreate = request.entities.filter((e) => e.create && (e.parent === null || liveParents.has(e.parent))).sort((a, b) => (a.urn < b.urn ? -1 : 1));
  const created = new Set<string>();
  if (toCreate.length > 0) {
    const rows = await tx.query<Pick<EntityModel, 'urn'>>(sql`
      INSERT INTO entity (urn, entity_type)
      SELECT * FROM unnest(${toCreate.map((e) => e.urn)}::text[], ${toCreate.map((e) => e.entityType)}::text[])
      ON CONFLICT (urn) DO NOTHING RETURNING urn`);
    for (const r of rows) created.add(r.urn);
  }
  const locked = await tx.query<Pick<EntityModel, 'urn' | 'version'>>(sql`
    SELECT urn, version FROM entity WHERE urn = ANY(${request.entities.map((e) => e.urn)}::text[]) ORDER BY urn FOR UPDATE`);
  const versions = new Map(locked.map((r) => [r.urn, r.version]));
  const rows = await loadRows(tx, request, []);
  return stateOf(request, rows, (e) => ({
    existence: created.has(e.urn) ? 'created' : versions.has(e.urn) ? 'existed' : 'missing',
    version: versions.get(e.urn) ?? null,
    parentExists: e.parent !== null && liveParents.has(e.parent),
  }));
}

/** Takes back entities the locked load created for writes that were then refused (they have no aspect yet). */
export async function discardCreated(tx: Tx, urns: readonly string[]): Promise<void> {
  await tx.query(sql`DELETE FROM entity e WHERE e.urn = ANY(${urns}::text[]) AND NOT EXISTS (SELECT 1 FROM aspect a WHERE a.urn = e.urn)`);
}

/** Registry records of more properties (named by values computed after the load), with the same query. */
export async function loadPropertyRecords(target: WriteTarget, urns: readonly string[]): Promise<ReadonlyMap<string, PropertyRecord>> {
  const request: LoadRequest = { entities: [], aspects: [], properties: urns, searchFields: [] };
  return stateOf(request, await loadRows(queryableOf(target), request, []), () => {
    throw new Error('no entities were asked for');
  }).properties;
}

function entityVersions(rows: readonly LoadedRow[]): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const r of rows) if (r.kind === 'entityVersion') out.set(r.urn, BigInt(r.data.version));
  return out;
}

function stateOf(
  request: LoadRequest,
  rows: readonly LoadedRow[],
  existenceOf: (e: EntityToLoad) => { existence: Existence; version: bigint | null; parentExists: boolean },
): WriteState {
  const aspects = new Map<string, Map<string, CurrentAspect>>();
  const values = new Map<string, HeldValue[]>();
  const properties = new Map<string, PropertyRecord>();
  const searchFieldOwners = new Map<string, string>();
  for (const r of rows) {
    if (r.kind === 'aspect') {
      const byName = aspects.get(r.urn) ?? new Map<string, CurrentAspect>();
      byName.set(r.data.aspect, { metadata: r.data.metadata, systemMetadata: r.data.system_metadata });
      aspects.set(r.urn, byName);
    } else if (r.kind === 'heldValue') {
      const v = r.data;
      const list = values.get(r.urn) ?? [];
      list.push({
        propertyUrn: v.property_urn,
        generation: BigInt(v.generation),
        values: v.values,
        currentGeneration: v.current_generation === null ? null : BigInt(v.current_generation),
        removed: v.removed ?? false,
        migration: activeMigrationOf(v.migration),
      });
      values.set(r.urn, list);
    } else if (r.kind === 'property') {
      const p = r.data;
      properties.set(r.urn, { urn: r.urn, generation: BigInt(p.generation), removed: p.removed, definition: p.definition, entityVersion: BigInt(p.entity_version), migration: activeMigrationOf(p.migration) });
    } else if (r.kind === 'searchFieldOwner') {
      searchFieldOwners.set(r.data.search_field, r.urn);
    }
  }
  const entities = new Map<string, EntityState>();
  for (const e of request.entities) {
    const { existence, version, parentExists } = existenceOf(e);
    entities.set(e.urn, {
      existence,
      version,
      parent: e.parent === null ? null : { urn: e.parent, exists: parentExists },
      aspects: aspects.get(e.urn) ?? new Map(),
      values: values.get(e.urn) ?? [],
    });
  }
  return { entities, properties, searchFieldOwners };
}

/** The query both paths share; `entityUrns` are those whose versions it reads (none on the locked path, which has them from the lock). */
async function loadRows(db: Queryable, request: LoadRequest, entityUrns: readonly string[]): Promise<LoadedRow[]> {
  const urns = request.entities.map((e) => e.urn);
  const withValues = request.entities.filter((e) => e.values).map((e) => e.urn);
  return db.query<LoadedRow>(sql`
    SELECT 'entityVersion' AS kind, e.urn, json_build_object('version', e.version::text) AS data
    FROM entity e WHERE e.urn = ANY(${entityUrns}::text[])
    UNION ALL
    SELECT 'aspect' AS kind, a.urn, json_build_object('aspect', a.aspect, 'metadata', a.metadata, 'system_metadata', a.system_metadata) AS data
    FROM aspect a WHERE a.urn = ANY(${urns}::text[]) AND a.version = 0 AND a.aspect = ANY(${request.aspects}::text[])
    UNION ALL
    SELECT 'heldValue' AS kind, pv.entity_urn, json_build_object('property_urn', pv.property_urn, 'generation', pv.generation::text, 'values', pv."values",
                                                         'current_generation', sp.generation::text, 'removed', sp.removed,
                                                         'migration', CASE WHEN pv.generation <> sp.generation THEN sp.migration END) AS data
    FROM property_value pv LEFT JOIN structured_property sp ON sp.urn = pv.property_urn
    WHERE pv.entity_urn = ANY(${withValues}::text[])
    UNION ALL
    SELECT 'property' AS kind, rp.urn, json_build_object('generation', rp.generation::text, 'removed', rp.removed, 'definition', rp.definition,
                                                  'entity_version', rp.entity_version::text, 'migration', rp.migration) AS data
    FROM registered_property rp
    WHERE rp.urn IN (SELECT unnest(${request.properties}::text[])
                     UNION SELECT property_urn FROM property_value WHERE entity_urn = ANY(${withValues}::text[]))
    UNION ALL
    SELECT 'searchFieldOwner' AS kind, sp.urn, json_build_object('search_field', sp.search_field) AS data
    FROM structured_property sp WHERE sp.search_field = ANY(${request.searchFields}::text[])`);
}
