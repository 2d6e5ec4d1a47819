/**
 * Reads of versioned aspects (version 0 = latest; every write copies the previous
 * latest to the next history version) and of the entity rows that anchor them. Writes
 * go through writeApply.ts and deletes.ts, which also append to the change log.
 */
import { SOFT_DELETE } from '../domain/aspects/index.js';
import type { TypedValue } from '../domain/typedValue.js';
import type { HeldValue } from '../domain/writes/writeState.js';
import { activeMigrationOf } from '../domain/valueMigration.js';
import type { Queryable } from './database.js';
import type { AspectModel, EntityModel } from './generated/prisma/models.js';
import { literal, raw, sql, type Statement } from './sql.js';

export interface StoredAspect {
  readonly aspect: string;
  readonly metadata: unknown;
  readonly systemMetadata: Record<string, unknown> | null;
  readonly createdOn: Date;
  readonly createdBy: string;
}

type AspectRow = Pick<AspectModel, 'urn' | 'aspect' | 'metadata' | 'systemMetadata' | 'createdOn' | 'createdBy'>;

/** The columns of AspectRow, named as the model names them. */
const ASPECT_COLUMNS = raw('urn, aspect, metadata, system_metadata AS "systemMetadata", created_on AS "createdOn", created_by AS "createdBy"');

function toStored(r: AspectRow): StoredAspect {
  return { aspect: r.aspect, metadata: r.metadata, systemMetadata: r.systemMetadata as Record<string, unknown> | null, createdOn: r.createdOn, createdBy: r.createdBy };
}

export async function entityExists(db: Queryable, urn: string): Promise<boolean> {
  const rows = await db.query<{ one: number }>(sql`SELECT 1 AS one FROM entity WHERE urn = ${urn}`);
  return rows.length > 0;
}

/** Latest versions of one aspect for many entities. */
export async function latestAspectOfMany(db: Queryable, urns: readonly string[], name: string): Promise<Map<string, StoredAspect>> {
  if (urns.length === 0) return new Map();
  const rows = await db.query<AspectRow>(sql`
    SELECT ${ASPECT_COLUMNS} FROM aspect
    WHERE urn = ANY(${urns}::text[]) AND aspect = ${name} AND version = 0`);
  return new Map(rows.map((r) => [r.urn, toStored(r)]));
}

/** The names of the latest aspects of many entities (a write trace needs no more). */
export async function latestAspectNamesOfMany(db: Queryable, urns: readonly string[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (urns.length === 0) return out;
  const rows = await db.query<{ urn: string; aspect: string }>(sql`SELECT urn, aspect FROM aspect WHERE urn = ANY(${urns}::text[]) AND version = 0`);
  for (const r of rows) {
    const names = out.get(r.urn) ?? new Set<string>();
    names.add(r.aspect);
    out.set(r.urn, names);
  }
  return out;
}

/** Latest versions of many entities' aspects (all of them, or those named), by URN then aspect. */
export async function latestAspectsOfMany(db: Queryable, urns: readonly string[], names?: readonly string[]): Promise<Map<string, Map<string, StoredAspect>>> {
  const out = new Map<string, Map<string, StoredAspect>>();
  if (urns.length === 0) return out;
  const rows = names
    ? await db.query<AspectRow>(sql`
        SELECT ${ASPECT_COLUMNS} FROM aspect
        WHERE urn = ANY(${urns}::text[]) AND version = 0 AND aspect = ANY(${names}::text[])`)
    : await db.query<AspectRow>(sql`
        SELECT ${ASPECT_COLUMNS} FROM aspect
        WHERE urn = ANY(${urns}::text[]) AND version = 0`);
  for (const r of rows) {
    const byAspect = out.get(r.urn) ?? new Map<string, StoredAspect>();
    byAspect.set(r.aspect, toStored(r));
    out.set(r.urn, byAspect);
  }
  return out;
}

/** Whether any entity of the type exists. */
export async function anyEntityOfType(db: Queryable, entityType: string): Promise<boolean> {
  const rows = await db.query<{ one: number }>(sql`SELECT 1 AS one FROM entity WHERE entity_type = ${entityType} LIMIT 1`);
  return rows.length > 0;
}

/** Entity URNs of one type in URN order, after `afterUrn` (keyset paging). */
export async function listEntityUrns(db: Queryable, entityType: string, afterUrn: string | null, limit: number): Promise<string[]> {
  const rows = await db.query<Pick<EntityModel, 'urn'>>(sql`
    SELECT urn FROM entity WHERE entity_type = ${entityType} AND (${afterUrn}::text IS NULL OR urn > ${afterUrn})
    ORDER BY urn LIMIT ${limit}`);
  return rows.map((r) => r.urn);
}

/** Like listEntityUrns, leaving out soft-deleted entities (their latest soft delete mark, status.removed, is true). */
export async function listLiveEntityUrns(db: Queryable, entityType: string, afterUrn: string | null, limit: number): Promise<string[]> {
  const rows = await db.query<Pick<EntityModel, 'urn'>>(sql`
    SELECT e.urn FROM entity e
    WHERE e.entity_type = ${entityType} AND (${afterUrn}::text IS NULL OR e.urn > ${afterUrn})
      AND NOT EXISTS (
        SELECT 1 FROM aspect a
        WHERE a.urn = e.urn AND a.aspect = ${literal(SOFT_DELETE.aspect)} AND a.version = 0 AND a.metadata->>${literal(SOFT_DELETE.field)} = 'true')
    ORDER BY e.urn LIMIT ${limit}`);
  return rows.map((r) => r.urn);
}

export interface AuditStamp {
  readonly time: number;
  readonly actor: string;
}

export interface AuditStamps {
  readonly created: AuditStamp;
  readonly lastModified: AuditStamp;
}

/**
 * When an aspect of each entity was first written and last modified, and by whom, in one
 * statement: the lowest history version is the first write (every later write pushes the
 * previous latest to a new version; history retention may have deleted the first ones),
 * version 0 the latest. Entities without the aspect are left out.
 */
export async function aspectAudits(db: Queryable, urns: readonly string[], aspect: string): Promise<Map<string, AuditStamps>> {
  const out = new Map<string, AuditStamps>();
  if (urns.length === 0) return out;
  const rows = await db.query<Pick<AspectModel, 'urn' | 'version' | 'createdOn' | 'createdBy'>>(sql`
    SELECT a.urn, a.version, a.created_on AS "createdOn", a.created_by AS "createdBy" FROM aspect a
    WHERE a.urn = ANY(${urns}::text[]) AND a.aspect = ${aspect}
      AND (a.version = 0 OR a.version = (SELECT MIN(b.version) FROM aspect b WHERE b.urn = a.urn AND b.aspect = a.aspect AND b.version > 0))`);
  const byUrn = new Map<string, typeof rows>();
  for (const row of rows) byUrn.set(row.urn, [...(byUrn.get(row.urn) ?? []), row]);
  for (const [urn, versions] of byUrn) {
    const latest = versions.find((r) => r.version === 0n);
    if (!latest) continue;
    const first = versions.find((r) => r.version !== 0n) ?? latest;
    out.set(urn, {
      created: { time: first.createdOn.getTime(), actor: first.createdBy },
      lastModified: { time: latest.createdOn.getTime(), actor: latest.createdBy },
    });
  }
  return out;
}

/** Which of the URNs exist as entities. */
export async function existingEntities(db: Queryable, urns: readonly string[]): Promise<Set<string>> {
  if (urns.length === 0) return new Set();
  const rows = await db.query<Pick<EntityModel, 'urn'>>(sql`SELECT urn FROM entity WHERE urn = ANY(${urns}::text[])`);
  return new Set(rows.map((r) => r.urn));
}

/** How many entities there are of each of the types. */
export async function countEntitiesByType(db: Queryable, entityTypes: readonly string[]): Promise<Map<string, number>> {
  const rows = await db.query<Pick<EntityModel, 'entityType'> & { n: bigint }>(sql`
    SELECT entity_type AS "entityType", COUNT(*) AS n FROM entity WHERE entity_type = ANY(${entityTypes}::text[]) GROUP BY entity_type`);
  return new Map(rows.map((r) => [r.entityType, Number(r.n)]));
}

export interface AspectRevision {
  /** 1 for the first write, counting up; the latest has the highest. */
  readonly revision: number;
  readonly metadata: unknown;
  readonly createdOn: Date;
  readonly createdBy: string;
}

/**
 * Every stored version of an aspect, newest first, at most `limit`. History version n
 * holds the n-th write and version 0 the latest, so the latest's revision is one more
 * than the highest history version.
 */
export async function aspectRevisions(db: Queryable, urn: string, aspect: string, limit: number): Promise<AspectRevision[]> {
  const rows = await db.query<Pick<AspectModel, 'version' | 'metadata' | 'createdOn' | 'createdBy'> & { newest: bigint }>(sql`
    SELECT version, metadata, created_on AS "createdOn", created_by AS "createdBy", MAX(version) OVER () AS newest FROM aspect
    WHERE urn = ${urn} AND aspect = ${aspect}
    ORDER BY CASE WHEN version = 0 THEN 0 ELSE 1 END, version DESC
    LIMIT ${limit}`);
  return rows.map((r) => ({
    revision: r.version === 0n ? Number(r.newest) + 1 : Number(r.version),
    metadata: r.metadata,
    createdOn: r.createdOn,
    createdBy: r.createdBy,
  }));
}

/**
 * Entities whose latest `name` aspect contains any of the JSON values (PostgreSQL `@>`),
 * in urn order: who refers to an entity through that aspect.
 */
export async function entitiesWithAspectContaining(db: Queryable, name: string, patterns: readonly unknown[]): Promise<string[]> {
  if (patterns.length === 0) return [];
  const texts = patterns.map((p) => JSON.stringify(p));
  const rows = await db.query<Pick<AspectModel, 'urn'>>(sql`
    SELECT urn FROM aspect WHERE aspect = ${name} AND version = 0 AND metadata @> ANY(${texts}::jsonb[]) ORDER BY urn`);
  return rows.map((r) => r.urn);
}

/** One entity of a page read in one statement (entityPageReader). */
export interface EntityPageRow {
  /** The entity exists (for a schema field: its dataset does). */
  readonly present: boolean;
  /** Its latest aspects of those named, by name. */
  readonly aspects: ReadonlyMap<string, { readonly metadata: unknown; readonly systemMetadata: Record<string, unknown> | null }>;
  /** The values it holds, with their property's state; empty unless asked for. */
  readonly values: readonly HeldValue[];
}

/** One row of read_entity_page: a fact about one entity of the page (see its migration). */
interface PageFactRow {
  kind: 'e' | 'a' | 'v';
  urn: string;
  /** The aspect's name ('a'), the property's URN ('v'). */
  name: string | null;
  /** The aspect's metadata ('a'), the values held ('v'). */
  body: unknown;
  /** The aspect's system metadata ('a'); the property's migration ('v', when the row is under an older generation). */
  meta: Record<string, unknown> | null;
  generation: string | null;
  current_generation: string | null;
  removed: boolean | null;
}

/** Reads a page of entities (entityPageReader). */
export type EntityPageReader = (entities: readonly { urn: string; parent?: string | undefined; values: boolean }[], names: readonly string[]) => Promise<Map<string, EntityPageRow>>;

/**
 * The page read's statement: a function, whose plan PostgreSQL keeps (see its
 * migration). Exported for the benchmark's floor (bench/bareProxy.mjs), which sends the
 * very statement the REST search sends.
 */
export const ENTITY_PAGE = {
  name: 'read_entity_page',
  text: 'SELECT * FROM read_entity_page($1::text[], $2::text[], $3::boolean[], $4::text[])',
} as const;

/**
 * A page of entities as a search or batch read shows it, in one statement: existence (a
 * schema field's through its dataset), the named latest aspects and, where `values`
 * says so, the held values with their property's state. One statement rather than
 * three: on the search path three cost more on the socket than PostgreSQL spends
 * answering them (BENCHMARKS.md, "Where the time goes"); the statement's rows are
 * facts, not JSON built in SQL, which cost PostgreSQL more than the driver's parse of
 * the rows (BENCHMARKS.md, section 6).
 */
export function entityPageReader(db: Queryable): EntityPageReader {
  return async (entities, names) => {
    const out = new Map<string, EntityPageRow>();
    if (entities.length === 0) return out;
    const statement: Statement = { ...ENTITY_PAGE, values: [entities.map((e) => e.urn), entities.map((e) => e.parent ?? null), entities.map((e) => e.values), names] };
    const rows = await db.query<PageFactRow>(statement);
    const existing = new Set<string>();
    const aspects = new Map<string, Map<string, { metadata: unknown; systemMetadata: Record<string, unknown> | null }>>();
    const values = new Map<string, HeldValue[]>();
    for (const r of rows) {
      if (r.kind === 'e') existing.add(r.urn);
      else if (r.kind === 'a') mapOf(aspects, r.urn).set(r.name!, { metadata: r.body, systemMetadata: r.meta });
      else {
        listOf(values, r.urn).push(heldValueOf(r, r.meta));
      }
    }
    for (const e of entities) {
      out.set(e.urn, {
        present: existing.has(e.urn) || (e.parent !== undefined && existing.has(e.parent)),
        aspects: aspects.get(e.urn) ?? new Map(),
        values: values.get(e.urn) ?? [],
      });
    }
    return out;
  };
}

/** A value row of a page read (kind 'v': the property's URN as its name, the values as its body) as the write and index paths hold it. */
export function heldValueOf(r: { name: string | null; body: unknown; generation: string | null; current_generation: string | null; removed: boolean | null }, migration: unknown): HeldValue {
  return {
    propertyUrn: r.name!,
    generation: BigInt(r.generation!),
    values: r.body as TypedValue[],
    currentGeneration: r.current_generation === null ? null : BigInt(r.current_generation),
    removed: r.removed === true,
    migration: activeMigrationOf(migration),
  };
}

/** The map under `key`, made empty when there is none (the page reads' rows grouped by entity). */
export function mapOf<K, V>(outer: Map<string, Map<K, V>>, key: string): Map<K, V> {
  let inner = outer.get(key);
  if (!inner) outer.set(key, (inner = new Map()));
  return inner;
}

/** The list under `key`, made empty when there is none. */
export function listOf<T>(lists: Map<string, T[]>, key: string): T[] {
  let list = lists.get(key);
  if (!list) lists.set(key, (list = []));
  return list;
}
