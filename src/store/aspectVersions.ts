/**
 * Reads of aspect history (docs/contract.md §13): one version of an aspect as DataHub
 * numbers them (0 the latest, 1..n the earlier ones, oldest first: the write path
 * copies the latest to max + 1 before replacing it, so the store's numbers are
 * DataHub's), and pages of structuredProperties versions that changed values, each with
 * the version written before it, for the history of an entity or of a property.
 */
import { ASPECT } from '../domain/aspects/index.js';
import type { HistoryCursor } from '../domain/valueHistory.js';
import type { Queryable } from './database.js';
import { EMPTY, literal, raw, sql, type Sql } from './sql.js';

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
  /**
   * The version's `properties` (a structuredProperties aspect's list of assignments); with
   * a property asked about, only that property's assignments, each its urn and values.
   */
  readonly properties: unknown;
  /** The same of the version written before (null: none is stored). */
  readonly previousProperties: unknown | null;
  /** Its revision (null: none is stored). */
  readonly previousRevision: number | null;
  /** When it was written, in ms (null: none is stored). */
  readonly previousTime: number | null;
  /** When the version was written, in ms. */
  readonly time: number;
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
   * Characters of JSON (each version and the one before it, whole) a page may read: it
   * ends before the version that starts past them (the first one always comes), so a
   * page's cost is bounded by size, not only by count (issue #46 item 2).
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

/**
 * A row as the statement returns it: numbers as JS numbers (float8; pg would parse int8
 * into BigInt and a timestamp into a Date, row by row), and of each version only the
 * part a history entry is made of. `page_rows` is the page's own figure; `scanned` (the
 * versions looked through), `available` (those there were to look through) and `last_*`
 * (the last one looked at) a widely held property's page's, null otherwise.
 */
type Row = {
  urn: string | null;
  version: number;
  revision: number;
  properties: unknown;
  previous: unknown | null;
  previous_revision: number | null;
  previous_on: number | null;
  created_on: number;
  created_by: string;
  created_via: string | null;
  page_rows: number;
  scanned: number | null;
  available: number | null;
  last_urn: string | null;
  last_on: number | null;
  last_revision: number | null;
};

/** A timestamp as ms since the epoch (float8: a JS number as it comes; the column holds ms, so the value is whole). */
const ms = (column: string) => sql`(extract(epoch FROM ${raw(column)}) * 1000)::float8`;

/**
 * Versions of structuredProperties aspects that changed something (all values, or the
 * property's), newest first: by time, then entity, then write order; at most `limit` of
 * them, and no more than `maxCharacters` of JSON, measured in the database so that what
 * is left out is never sent or parsed. Of each version only its assignments come (with a
 * property, only that property's values), extracted by the database: a page of a widely
 * held property's history was whole aspects and their dates parsed per row, the longest
 * stretches without a /health answer under issue #46's attack (BENCHMARKS.md). A page of
 * a widely held property's history may end early (even empty) where its look through
 * recent writes stopped: `more` is then true and `resume` says where to go on.
 */
export async function valuesVersions(db: Queryable, q: ValuesVersionQuery): Promise<ValuesVersionPage> {
  if (q.urn === undefined && q.propertyUrn === undefined) throw new Error('valuesVersions needs an entity or a property');
  const naming = q.propertyUrn === undefined ? EMPTY : sql`${JSON.stringify([{ propertyUrn: q.propertyUrn }])}::jsonb`;
  if (q.urn === undefined) {
    const [few] = await db.query<{ n: number }>(sql`
      SELECT count(*)::int AS n FROM (SELECT 1 FROM aspect h WHERE h.aspect = ${literal(ASPECT.structuredProperties)} AND h.metadata->'properties' @> ${naming} LIMIT ${FEW_VERSIONS + 1}) s`);
    if (few!.n > FEW_VERSIONS) return recentVersionsNaming(db, q, naming);
  }
  const entities =
    q.urn !== undefined
      ? sql`a.urn = ${q.urn}`
      : sql`a.urn IN (SELECT DISTINCT h.urn FROM aspect h WHERE h.aspect = ${literal(ASPECT.structuredProperties)} AND h.metadata->'properties' @> ${naming})`;
  const rows = await sizedPage(db, q, sql`
    v AS (
      SELECT a.urn, a.version, a.metadata, a.created_on, a.created_by, a.created_via,
             CASE WHEN a.version = 0 THEN MAX(a.version) OVER (PARTITION BY a.urn) + 1 ELSE a.version END AS revision
      FROM aspect a WHERE a.aspect = ${literal(ASPECT.structuredProperties)} AND ${entities}
    ), d AS (
      SELECT v.*, LAG(metadata) OVER w AS previous, LAG(revision) OVER w AS previous_revision, LAG(created_on) OVER w AS previous_on
      FROM v WINDOW w AS (PARTITION BY urn ORDER BY revision)
    )`);
  return { more: rows.length > 0 && rows[0]!.page_rows > rows.length, rows: rows.map((r) => toRow(r, q.propertyUrn)) };
}

/**
 * The page of a widely held property's history: recent versions of any entity looked
 * through, from the cursor back, SCANNED_PER_PAGE at most and no more characters of them
 * than the page may hold (the first always), in one statement. The versions looked
 * through never leave the database: sent back as the next statement's parameters, 3,000
 * of them a page, they and their dates were as much of the node process's work as the
 * entries. And the look ends at the page's size: of 1,000 versions looked through, a page
 * of 64 KiB took about 220 (each version of the benchmark's datasets is about 300
 * characters), and the rest were looked through again by the next page.
 */
async function recentVersionsNaming(db: Queryable, q: ValuesVersionQuery, naming: Sql): Promise<ValuesVersionPage> {
  // After the cursor (time, entity, write order): the write order of an entity's latest version is the highest, so a
  // version of the cursor's entity and time comes after it when it is an earlier one, numbered below the cursor's.
  const after = q.after
    ? sql`AND ((a.created_on, a.urn) < (${new Date(q.after.time)}::timestamptz, ${q.after.urn}::text)
              OR (a.created_on = ${new Date(q.after.time)}::timestamptz AND a.urn = ${q.after.urn}::text AND a.version <> 0 AND a.version < ${BigInt(q.after.revision)}::bigint))`
    : EMPTY;
  const rows = await sizedPage(
    db,
    q,
    sql`
    recent AS (
      SELECT a.urn, a.version, a.metadata, a.created_on, a.created_by, a.created_via FROM aspect a
      WHERE a.aspect = ${literal(ASPECT.structuredProperties)} ${after}
      ORDER BY a.created_on DESC, a.urn DESC
      LIMIT ${SCANNED_PER_PAGE + TIES}
    ), ordered AS (
      -- In the history's order, with the size of the versions before each one.
      SELECT s.*, row_number() OVER w AS n, SUM(length(s.metadata::text)) OVER w - length(s.metadata::text) AS scanned_before
      FROM recent s
      WINDOW w AS (ORDER BY s.created_on DESC, s.urn DESC, (s.version = 0) DESC, s.version DESC ROWS UNBOUNDED PRECEDING)
    ), scanned AS MATERIALIZED (
      -- The versions looked through: SCANNED_PER_PAGE at most, and no more than the page's size (the first always), with each one's write order.
      SELECT o.urn, o.version, o.metadata, o.created_on, o.created_by, o.created_via, o.n,
             CASE WHEN o.version = 0 THEN (SELECT COALESCE(max(b.version), 0) + 1 FROM aspect b WHERE b.urn = o.urn AND b.aspect = ${literal(ASPECT.structuredProperties)}) ELSE o.version END AS revision
      FROM ordered o
      WHERE o.n <= ${SCANNED_PER_PAGE} AND (o.scanned_before = 0 OR o.scanned_before + length(o.metadata::text) <= ${q.maxCharacters})
    ), d AS (
      SELECT k.urn, k.version, k.metadata, k.created_on, k.created_by, k.created_via, k.revision,
             p.metadata AS previous, p.version AS previous_revision, p.created_on AS previous_on
      FROM scanned k
      LEFT JOIN LATERAL (
        SELECT b.version, b.metadata, b.created_on FROM aspect b
        WHERE b.urn = k.urn AND b.aspect = ${literal(ASPECT.structuredProperties)} AND b.version <> 0 AND (k.version = 0 OR b.version < k.version)
        ORDER BY b.version DESC LIMIT 1
      ) p ON true
      WHERE k.metadata->'properties' @> ${naming} OR p.metadata->'properties' @> ${naming}
    ), edge AS (
      SELECT count(*)::float8 AS scanned, (SELECT count(*) FROM recent)::float8 AS available, (array_agg(urn ORDER BY n DESC))[1] AS last_urn,
             (array_agg(created_on ORDER BY n DESC))[1] AS last_on, (array_agg(revision ORDER BY n DESC))[1]::float8 AS last_revision
      FROM scanned
    )`,
    true,
  );
  const edge = rows[0];
  const found = rows.filter((r) => r.urn !== null);
  if (!edge || edge.scanned === 0) return { rows: [], more: false };
  const cut = found.length > 0 && found[0]!.page_rows > found.length;
  const page = found.map((r) => toRow(r, q.propertyUrn));
  // Every version there was to look through was looked at: the history ends here unless the page was cut.
  if (cut || edge.scanned === edge.available) return { more: cut, rows: page };
  // The page ended where the look through recent writes stopped: go on from the last version looked at.
  return { more: true, rows: page, resume: { time: edge.last_on!, urn: edge.last_urn!, revision: edge.last_revision! } };
}

/**
 * The page of the candidate versions `ctes` defines (as `d`): changed, after the cursor,
 * at most `limit` and `maxCharacters`. With `edge` (a CTE of one row: how many versions
 * were looked through and the last of them), every row carries it, and a page with no
 * version is that one row with a null urn.
 */
async function sizedPage(db: Queryable, q: ValuesVersionQuery, ctes: Sql, edge = false): Promise<Row[]> {
  const key = (column: string) =>
    q.propertyUrn !== undefined
      ? sql`jsonb_path_query_first(${raw(column)}, '$.properties[*] ? (@.propertyUrn == $p).values', jsonb_build_object('p', ${q.propertyUrn}::text))`
      : sql`(${raw(column)})->'properties'`;
  // What an entry is made of: with a property, the values of its assignments (one list each); else every assignment.
  const part = (column: string) =>
    q.propertyUrn !== undefined
      ? sql`jsonb_path_query_array(${raw(column)}, '$.properties[*] ? (@.propertyUrn == $p).values', jsonb_build_object('p', ${q.propertyUrn}::text))`
      : sql`(${raw(column)})->'properties'`;
  const after = q.after
    ? sql`AND (created_on, urn, revision) < (${new Date(q.after.time)}::timestamptz, ${q.after.urn}::text, ${BigInt(q.after.revision)}::bigint)`
    : EMPTY;
  const order = raw('created_on DESC, urn DESC, revision DESC');
  const page = sql`
    SELECT urn, version::float8 AS version, revision::float8 AS revision, ${part('metadata')} AS properties,
           ${part('previous')} AS previous,
           previous_revision::float8 AS previous_revision, ${ms('previous_on')} AS previous_on,
           ${ms('created_on')} AS created_on, created_by, created_via, page_rows::float8 AS page_rows
    FROM sized
    WHERE before = 0 OR before + size <= ${q.maxCharacters}
    ORDER BY ${order}
    LIMIT ${q.limit}`;
  return db.query<Row>(sql`
    WITH ${ctes}, page AS (
      SELECT urn, version, revision, metadata, previous, previous_revision, previous_on, created_on, created_by, created_via,
             -- Each version's size as stored, measured once (as text: a third of the statement's time was these conversions, made three times).
             length(metadata::text) + COALESCE(length(previous::text), 0) AS size
      FROM d
      WHERE ${key('metadata')} IS DISTINCT FROM ${key('previous')} ${after}
      ORDER BY ${order}
      LIMIT ${q.limit + 1}
    ), sized AS (
      SELECT page.*, count(*) OVER () AS page_rows, SUM(size) OVER (ORDER BY ${order} ROWS UNBOUNDED PRECEDING) - size AS before
      FROM page
    )
    ${
      edge
        ? sql`, taken AS (${page})
    SELECT t.urn, t.version, t.revision, t.properties, t.previous, t.previous_revision, t.previous_on, t.created_on, t.created_by, t.created_via, t.page_rows,
           e.scanned, e.available, e.last_urn, ${ms('e.last_on')} AS last_on, e.last_revision
    FROM edge e LEFT JOIN taken t ON true
    ORDER BY t.created_on DESC, t.urn DESC, t.revision DESC`
        : page
    }`);
}

/** A row as the service reads it: with a property asked about, its values lists become that property's assignments. */
function toRow(r: Row, propertyUrn: string | undefined): ValuesVersionRow {
  const assignments = (part: unknown) => (propertyUrn !== undefined && Array.isArray(part) ? part.map((values: unknown) => ({ propertyUrn, values })) : part);
  return {
    urn: r.urn!,
    version: r.version,
    revision: r.revision,
    properties: assignments(r.properties),
    previousProperties: r.previous === null ? null : assignments(r.previous),
    previousRevision: r.previous_revision,
    previousTime: r.previous_on,
    time: r.created_on,
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
