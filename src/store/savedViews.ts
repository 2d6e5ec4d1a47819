/**
 * Saved views as DataHub stores them: a `dataHubView` entity whose `dataHubViewInfo` aspect
 * holds the view (written through the one write path like any aspect). This reads the
 * latest version of those aspects by kind and owner, for DataHub's listMyViews and
 * listGlobalViews, newest first, from the entity table's index by type (views are few; the
 * aspect table has no index by aspect name).
 */
import type { Queryable } from './database.js';
import { EMPTY, sql } from './sql.js';

export interface StoredView {
  readonly urn: string;
  /** The dataHubViewInfo aspect as stored. */
  readonly info: unknown;
}

export interface ViewQuery {
  /** The views' entity type and aspect, as the registry names them. */
  readonly entityType: string;
  readonly aspect: string;
  /** PERSONAL or GLOBAL. */
  readonly viewType: string;
  /** The creator of personal views (every creator when absent). */
  readonly owner?: string | undefined;
  /** Text the name must contain (case ignored). */
  readonly query?: string | undefined;
  readonly start: number;
  readonly count: number;
}

export type SavedViewLister = (query: ViewQuery) => Promise<{ total: number; views: StoredView[] }>;

export function savedViewLister(db: Queryable): SavedViewLister {
  return async ({ entityType, aspect, viewType, owner, query, start, count }) => {
    const ownerClause = owner === undefined ? EMPTY : sql`AND a.metadata->'created'->>'actor' = ${owner}`;
    const nameClause = query === undefined || query === '' ? EMPTY : sql`AND strpos(lower(a.metadata->>'name'), lower(${query})) > 0`;
    const rows = await db.query<{ urn: string; metadata: unknown; total: string }>(sql`
      SELECT a.urn, a.metadata, count(*) OVER () AS total
      FROM entity e JOIN aspect a ON a.urn = e.urn AND a.aspect = ${aspect} AND a.version = 0
      WHERE e.entity_type = ${entityType} AND a.metadata->>'type' = ${viewType} ${ownerClause} ${nameClause}
      ORDER BY (a.metadata->'lastModified'->>'time')::bigint DESC NULLS LAST, a.urn
      OFFSET ${start} LIMIT ${count}`);
    return { total: rows.length > 0 ? Number(rows[0]!.total) : 0, views: rows.map((r) => ({ urn: r.urn, info: r.metadata })) };
  };
}
