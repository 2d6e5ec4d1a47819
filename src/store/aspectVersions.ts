/**
 * Reads of aspect history (docs/contract.md §13): one version of an aspect as DataHub
 * numbers them (0 the latest, 1..n the earlier ones, oldest first: the write path
 * copies the latest to max + 1 before replacing it, so the store's numbers are
 * DataHub's), and pages of structuredProperties versions that changed values, each with
 * the version written before it, for the history of an entity or of a property.
 */
import type { HistoryCursor } from '../domain/valueHistory.js';
import type { Queryable } from './database.js';
import { EMPTY, raw, sql } from './sql.js';

export interface AspectVersion {
  readonly version: number;
  readonly metadata: unknown;
  readonly systemMetadata: Record<string, unknown> | null;
  readonly createdOn: Date;
  readonly createdBy: string;
  readonly createdVia: string | null;
}

/** One stored version of an aspect; undefined when there is no such version. */
export async function aspectVersion(db: Queryable, urn: string, aspect: string, version: number): Promise<AspectVersion | undefined> {
  const rows = await db.query<{ metadata: unknown; system_metadata: Record<string, unknown> | null; created_on: Date; created_by: string; created_via: string | null }>(sql`
    SELECT metadata, system_metadata, created_on, created_by, created_via FROM aspect
    WHERE urn = ${urn} AND aspect = ${aspect} AND version = ${BigInt(version)}`);
  const r = rows[0];
  return r ? { version, metadata: r.metadata, systemMetadata: r.system_metadata, createdOn: r.created_on, createdBy: r.created_by, createdVia: r.created_via } : undefined;
}

/** The audit stamp of an aspect's latest version. */
export async function latestAudit(db: Queryable, urn: string, aspect: string): Promise<{ createdOn: Date; createdBy: string; createdVia: string | null } | undefined> {
  const found = await aspectVersion(db, urn, aspect, 0);
  return found && { createdOn: found.createdOn, createdBy: found.createdBy, createdVia: found.createdVia };
}

export interface ValuesVersionRow {
  readonly urn: string;
  readonly version: number;
  /** The order of the entity's writes: 1 for the first, the latest has the highest. */
  readonly revision: number;
  readonly metadata: unknown;
  /** The version written before (null: none is stored). */
  readonly previous: unknown | null;
  /** Its revision (null: none is stored). */
  readonly previousRevision: number | null;
  /** When it was written (null: none is stored). */
  readonly previousOn: Date | null;
  readonly createdOn: Date;
  readonly createdBy: string;
  readonly createdVia: string | null;
}

export interface ValuesVersionQuery {
  /** One entity's history; absent: every entity whose history names `propertyUrn`. */
  readonly urn?: string;
  /** Only versions that changed this property's values. */
  readonly propertyUrn?: string;
  /** Versions older than this one (the previous page's last). */
  readonly after?: HistoryCursor;
  readonly limit: number;
  /**
   * Characters of JSON (each version and the one before it) a page may read: it ends
   * before the version that starts past them (the first one always comes), so a page's
   * cost is bounded by size, not only by count (issue #46 item 2).
   */
  readonly maxCharacters: number;
}

export interface ValuesVersionPage {
  readonly rows: ValuesVersionRow[];
  /** Whether more versions follow (the count or the size ended the page). */
  readonly more: boolean;
}

/**
 * Versions of structuredProperties aspects that changed something (all values, or the
 * property's), newest first: by time, then entity, then write order; at most `limit` of
 * them, and no more than `maxCharacters` of JSON, measured in the database so that what
 * is left out is never sent or parsed.
 */
export async function valuesVersions(db: Queryable, q: ValuesVersionQuery): Promise<ValuesVersionPage> {
  if (q.urn === undefined && q.propertyUrn === undefined) throw new Error('valuesVersions needs an entity or a property');
  const entities =
    q.urn !== undefined
      ? sql`a.urn = ${q.urn}`
      : sql`a.urn IN (SELECT DISTINCT h.urn FROM aspect h WHERE h.aspect = 'structuredProperties'
          AND h.metadata->'properties' @> ${JSON.stringify([{ propertyUrn: q.propertyUrn }])}::jsonb)`;
  const key = (column: string) =>
    q.propertyUrn !== undefined
      ? sql`jsonb_path_query_first(${raw(column)}, '$.properties[*] ? (@.propertyUrn == $p).values', jsonb_build_object('p', ${q.propertyUrn}::text))`
      : sql`(${raw(column)})->'properties'`;
  const after = q.after
    ? sql`AND (created_on, urn, revision) < (${new Date(q.after.time)}::timestamptz, ${q.after.urn}::text, ${BigInt(q.after.revision)}::bigint)`
    : EMPTY;
  const rows = await db.query<{ urn: string; version: bigint; revision: bigint; metadata: unknown; previous: unknown | null; previous_revision: bigint | null; previous_on: Date | null; created_on: Date; created_by: string; created_via: string | null; page_rows: bigint }>(sql`
    WITH v AS (
      SELECT a.urn, a.version, a.metadata, a.created_on, a.created_by, a.created_via,
             CASE WHEN a.version = 0 THEN MAX(a.version) OVER (PARTITION BY a.urn) + 1 ELSE a.version END AS revision
      FROM aspect a WHERE a.aspect = 'structuredProperties' AND ${entities}
    ), d AS (
      SELECT v.*, LAG(metadata) OVER w AS previous, LAG(revision) OVER w AS previous_revision, LAG(created_on) OVER w AS previous_on
      FROM v WINDOW w AS (PARTITION BY urn ORDER BY revision)
    ), page AS (
      SELECT urn, version, revision, metadata, previous, previous_revision, previous_on, created_on, created_by, created_via FROM d
      WHERE ${key('metadata')} IS DISTINCT FROM ${key('previous')} ${after}
      ORDER BY created_on DESC, urn DESC, revision DESC
      LIMIT ${q.limit + 1}
    ), sized AS (
      SELECT page.*, count(*) OVER () AS page_rows,
             SUM(length(metadata::text) + COALESCE(length(previous::text), 0)) OVER (ORDER BY created_on DESC, urn DESC, revision DESC ROWS UNBOUNDED PRECEDING)
               - (length(metadata::text) + COALESCE(length(previous::text), 0)) AS before
      FROM page
    )
    SELECT urn, version, revision, metadata, previous, previous_revision, previous_on, created_on, created_by, created_via, page_rows FROM sized
    WHERE before = 0 OR before + length(metadata::text) + COALESCE(length(previous::text), 0) <= ${q.maxCharacters}
    ORDER BY created_on DESC, urn DESC, revision DESC
    LIMIT ${q.limit}`);
  const more = rows.length > 0 && Number(rows[0]!.page_rows) > rows.length;
  return {
    more,
    rows: rows.map((r) => ({
      urn: r.urn,
      version: Number(r.version),
      revision: Number(r.revision),
      metadata: r.metadata,
      previous: r.previous,
      previousRevision: r.previous_revision === null ? null : Number(r.previous_revision),
      previousOn: r.previous_on,
      createdOn: r.created_on,
      createdBy: r.created_by,
      createdVia: r.created_via,
    })),
  };
}

export interface RevisionRow {
  /** The revision (systemMetadata.version) the row holds. */
  readonly revision: number;
  readonly metadata: unknown;
  readonly createdOn: Date;
  readonly createdBy: string;
  readonly createdVia: string | null;
}

/**
 * The versions of an aspect from revision `from` on (the one a stale write read, and
 * every later one), oldest first; at most `limit` of the later ones, and always the latest.
 * The revision a writer read may be gone (HISTORY_VERSIONS_KEPT), then only later ones come.
 */
export async function revisionsSince(db: Queryable, urn: string, aspect: string, from: number, limit: number): Promise<RevisionRow[]> {
  const rows = await db.query<{ revision: number; metadata: unknown; created_on: Date; created_by: string; created_via: string | null }>(sql`
    SELECT revision, metadata, created_on, created_by, created_via FROM (
      SELECT COALESCE((system_metadata->>'version')::int, 1) AS revision, version, metadata, created_on, created_by, created_via,
             row_number() OVER (ORDER BY COALESCE((system_metadata->>'version')::int, 1) DESC) AS newest
      FROM aspect WHERE urn = ${urn} AND aspect = ${aspect}
    ) r WHERE r.version = 0 OR (r.revision >= ${from} AND (r.newest <= ${limit + 1} OR r.revision = ${from}))
    ORDER BY revision`);
  return rows.map((r) => ({ revision: Number(r.revision), metadata: r.metadata, createdOn: r.created_on, createdBy: r.created_by, createdVia: r.created_via }));
}
