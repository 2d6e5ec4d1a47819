/**
 * Reads of aspect history (docs/contract.md §13): one version of an aspect as DataHub
 * numbers them (0 the latest, 1..n the earlier ones, oldest first: the write path
 * copies the latest to max + 1 before replacing it, so the store's numbers are
 * DataHub's), and pages of structuredProperties versions that changed values, each with
 * the version written before it, for the history of an entity or of a property.
 */
import type { HistoryCursor } from '../domain/valueHistory.js';
import type { Queryable } from './database.js';
import { EMPTY, raw, sql, type Sql } from './sql.js';

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
  /** Whether more versions may follow (the count, the size or the look through recent writes ended the page). */
  readonly more: boolean;
  /** Where the next page starts when it is not after the last row (the look through recent writes went past it). */
  readonly resume?: HistoryCursor;
}

/**
 * A property whose versions naming it are at most FEW_VERSIONS has its history read from
 * its holders' versions; a property held more widely, from the newest writes back,
 * SCANNED_PER_PAGE versions of any entity looked through per page. Either way one page
 * costs the database a bounded amount of work: the history of a property held by 20,000
 * datasets read every holder's versions for each page, 0.33 to 0.67 s whatever its count
 * (0.11 to 0.14 s for 20 entries this way), and ten such pages in one request held /health
 * at 618 ms (BENCHMARKS.md, "Under attack: issue #46's history, jobs, test runs and backups").
 */
const FEW_VERSIONS = 2000;
const SCANNED_PER_PAGE = 1000;
/**
 * The scan reads in the index's order (time, entity), which the planner takes whatever
 * its statistics say; versions of one entity written in the same millisecond are put in
 * write order after it, for which this many more are read.
 */
const TIES = 50;

type Row = { urn: string; version: bigint; revision: bigint; metadata: unknown; previous: unknown | null; previous_revision: bigint | null; previous_on: Date | null; created_on: Date; created_by: string; created_via: string | null; page_rows: bigint };

/**
 * Versions of structuredProperties aspects that changed something (all values, or the
 * property's), newest first: by time, then entity, then write order; at most `limit` of
 * them, and no more than `maxCharacters` of JSON, measured in the database so that what
 * is left out is never sent or parsed. A page of a widely held property's history may
 * end early (even empty) where its look through recent writes stopped: `more` is then
 * true and `resume` says where to go on.
 */
export async function valuesVersions(db: Queryable, q: ValuesVersionQuery): Promise<ValuesVersionPage> {
  if (q.urn === undefined && q.propertyUrn === undefined) throw new Error('valuesVersions needs an entity or a property');
  const naming = q.propertyUrn === undefined ? EMPTY : sql`${JSON.stringify([{ propertyUrn: q.propertyUrn }])}::jsonb`;
  if (q.urn === undefined) {
    const [few] = await db.query<{ n: number }>(sql`
      SELECT count(*)::int AS n FROM (SELECT 1 FROM aspect h WHERE h.aspect = 'structuredProperties' AND h.metadata->'properties' @> ${naming} LIMIT ${FEW_VERSIONS + 1}) s`);
    if (few!.n > FEW_VERSIONS) return recentVersionsNaming(db, q, naming);
  }
  const entities =
    q.urn !== undefined
      ? sql`a.urn = ${q.urn}`
      : sql`a.urn IN (SELECT DISTINCT h.urn FROM aspect h WHERE h.aspect = 'structuredProperties' AND h.metadata->'properties' @> ${naming})`;
  const rows = await sizedPage(db, q, sql`
    v AS (
      SELECT a.urn, a.version, a.metadata, a.created_on, a.created_by, a.created_via,
             CASE WHEN a.version = 0 THEN MAX(a.version) OVER (PARTITION BY a.urn) + 1 ELSE a.version END AS revision
      FROM aspect a WHERE a.aspect = 'structuredProperties' AND ${entities}
    ), d AS (
      SELECT v.*, LAG(metadata) OVER w AS previous, LAG(revision) OVER w AS previous_revision, LAG(created_on) OVER w AS previous_on
      FROM v WINDOW w AS (PARTITION BY urn ORDER BY revision)
    )`);
  return { more: rows.length > 0 && Number(rows[0]!.page_rows) > rows.length, rows: rows.map(toRow) };
}

/** The page of a widely held property's history: SCANNED_PER_PAGE recent versions of any entity looked through, from the cursor back. */
async function recentVersionsNaming(db: Queryable, q: ValuesVersionQuery, naming: Sql): Promise<ValuesVersionPage> {
  // After the cursor (time, entity, write order): the write order of an entity's latest version is the highest, so a
  // version of the cursor's entity and time comes after it when it is an earlier one, numbered below the cursor's.
  const after = q.after
    ? sql`AND ((a.created_on, a.urn) < (${new Date(q.after.time)}::timestamptz, ${q.after.urn}::text)
              OR (a.created_on = ${new Date(q.after.time)}::timestamptz AND a.urn = ${q.after.urn}::text AND a.version <> 0 AND a.version < ${BigInt(q.after.revision)}::bigint))`
    : EMPTY;
  // Keys only: the versions looked through, in the history's order; the write order of the few taken, once they are taken.
  const scanned = await db.query<{ urn: string; version: bigint; revision: bigint; created_on: Date }>(sql`
    SELECT s.urn, s.version, s.created_on,
           CASE WHEN s.version = 0 THEN (SELECT COALESCE(max(b.version), 0) + 1 FROM aspect b WHERE b.urn = s.urn AND b.aspect = 'structuredProperties') ELSE s.version END AS revision
    FROM (
      SELECT a.urn, a.version, a.created_on FROM aspect a WHERE a.aspect = 'structuredProperties' ${after}
      ORDER BY a.created_on DESC, a.urn DESC
      LIMIT ${SCANNED_PER_PAGE + TIES}
    ) s
    ORDER BY s.created_on DESC, s.urn DESC, (s.version = 0) DESC, s.version DESC
    LIMIT ${SCANNED_PER_PAGE}`);
  if (scanned.length === 0) return { rows: [], more: false };
  const rows = await sizedPage(db, q, sql`
    d AS (
      SELECT a.urn, a.version, a.metadata, a.created_on, a.created_by, a.created_via, k.revision,
             p.metadata AS previous, p.version AS previous_revision, p.created_on AS previous_on
      FROM unnest(${scanned.map((r) => r.urn)}::text[], ${scanned.map((r) => String(r.version))}::bigint[], ${scanned.map((r) => String(r.revision))}::bigint[]) AS k(urn, version, revision)
      JOIN aspect a ON a.urn = k.urn AND a.aspect = 'structuredProperties' AND a.version = k.version
      LEFT JOIN LATERAL (
        SELECT b.version, b.metadata, b.created_on FROM aspect b
        WHERE b.urn = a.urn AND b.aspect = 'structuredProperties' AND b.version <> 0 AND (a.version = 0 OR b.version < a.version)
        ORDER BY b.version DESC LIMIT 1
      ) p ON true
      WHERE a.metadata->'properties' @> ${naming} OR p.metadata->'properties' @> ${naming}
    )`);
  const cut = rows.length > 0 && Number(rows[0]!.page_rows) > rows.length;
  if (cut || scanned.length < SCANNED_PER_PAGE) return { more: cut, rows: rows.map(toRow) };
  // The page ended where the look through recent writes stopped: go on from the last version looked at.
  const last = scanned.at(-1)!;
  return { more: true, rows: rows.map(toRow), resume: { time: last.created_on.getTime(), urn: last.urn, revision: Number(last.revision) } };
}

/** The page of the candidate versions `ctes` defines (as `d`): changed, after the cursor, at most `limit` and `maxCharacters`. */
async function sizedPage(db: Queryable, q: ValuesVersionQuery, ctes: Sql): Promise<Row[]> {
  const key = (column: string) =>
    q.propertyUrn !== undefined
      ? sql`jsonb_path_query_first(${raw(column)}, '$.properties[*] ? (@.propertyUrn == $p).values', jsonb_build_object('p', ${q.propertyUrn}::text))`
      : sql`(${raw(column)})->'properties'`;
  const after = q.after
    ? sql`AND (created_on, urn, revision) < (${new Date(q.after.time)}::timestamptz, ${q.after.urn}::text, ${BigInt(q.after.revision)}::bigint)`
    : EMPTY;
  return db.query<Row>(sql`
    WITH ${ctes}, page AS (
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
}

function toRow(r: Row): ValuesVersionRow {
  return {
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
