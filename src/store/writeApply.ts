/**
 * The one applier of the write path: a batch of write decisions in one statement,
 * set-based (a few CTEs for the whole batch, not a few statements per entity). It
 * copies each current latest aspect to its next history version (as the decision keeps
 * it, when it says: AspectRow.previousKeptAs), upserts the new latest, replaces value
 * rows, changes registry rows, queues jobs and appends one change-log row per entity
 * (naming the aspects written, in input order: the indexer rebuilds whole documents, so
 * one row per entity and write is all it needs).
 *
 * Everything depends on one `ok`: the state the decisions relied on is still there.
 * On the optimistic path that means every written entity is still at the version it
 * was loaded at (the statement bumps it, or creates it), every parent still exists
 * (share-locked), every property record relied on is unchanged and every search field
 * name claimed is still free. On the locked path the entities are locked already; the
 * property and search-field checks remain. A refused statement writes nothing.
 */
import { ASPECT } from '../domain/aspects/index.js';
import { activeMigrationJson } from '../domain/valueMigration.js';
import { stringifyInTurns } from '../platform/jsonInTurns.js';
import { changesSomething, type EntityWriteDecision, type RegistryChange } from '../domain/writes/writeDecision.js';
import { EMPTY, join, literal, sql, type Sql } from './sql.js';
import { isRetryableConflict, isUniqueViolation } from './statementRefusal.js';
import { activeTraceparent } from '../telemetry/tracing.js';
import { queryableOf, type WriteState, type WriteTarget } from './writeLoad.js';

/** The registry's unique index on search_field: a definition claiming a field another holds violates it. */
const SEARCH_FIELD_KEY = 'structured_property_search_field_key';

/** Thrown on the locked path when the statement was refused: the transaction is to be run again. */
export class WriteConflict extends Error {
  constructor() {
    super('the state a write relied on changed before it applied');
  }
}

/**
 * How much history each aspect keeps: `versionsKept` earlier versions (the newest ones;
 * version numbers never change), 0 for all of them. Older ones are deleted when the
 * aspect is next written.
 */
export interface HistoryRetention {
  readonly versionsKept: number;
}

const KEEP_ALL: HistoryRetention = { versionsKept: 0 };

/**
 * Applies the decisions (those that change something). Returns the change-log id
 * of each entity logged; null when the optimistic statement was refused (throws
 * WriteConflict on the locked path).
 */
export async function applyWrites(target: WriteTarget, all: readonly EntityWriteDecision[], state: WriteState, retention: HistoryRetention = KEEP_ALL): Promise<Map<string, bigint> | null> {
  const decisions = all.filter(changesSomething);
  if (decisions.length === 0) return new Map();
  // Not prepared: its text varies with what it writes, so a prepared statement would never be reused.
  const statement = (await writeStatement(target, decisions, state, retention)).unprepared('write');
  let rows: Array<{ id: bigint | null; urn: string | null }>;
  try {
    rows = await queryableOf(target).query<{ id: bigint | null; urn: string | null }>(statement);
  } catch (err) {
    // A definition claiming the same search field committed while this statement ran; or,
    // on its own, the statement deadlocked with another batch bumping the same entities.
    if (!isUniqueViolation(err, SEARCH_FIELD_KEY) && !(target.kind === 'optimistic' && isRetryableConflict(err))) throw err;
    rows = [];
  }
  const ok = rows.some((r) => r.id === null);
  if (!ok) {
    if (target.kind === 'locked') throw new WriteConflict();
    return null;
  }
  return new Map(rows.filter((r) => r.id !== null).map((r) => [r.urn!, r.id!]));
}

/**
 * The applying statement. Its large inputs (the aspects and value rows of a 1,000-entity
 * batch) are written as JSON in turns of the event loop (src/platform/jsonInTurns.ts): written in
 * one call, they held every other request for several milliseconds.
 */
async function writeStatement(target: WriteTarget, decisions: readonly EntityWriteDecision[], state: WriteState, retention: HistoryRetention): Promise<Sql> {
  const writes = decisions.flatMap((d) =>
    d.writes.map((w) => ({ urn: d.urn, entity_type: d.entityType, aspect: w.aspect, metadata: w.metadata, system_metadata: w.systemMetadata, created_by: d.createdBy, created_via: d.createdVia ?? null, kept_as: w.previousKeptAs ?? null })),
  ).map((w, ord) => ({ ord, ...w }));
  const logOnly = decisions.flatMap((d) => (d.creates ? [{ urn: d.urn, entity_type: d.entityType, aspect: d.creates.keyAspect }] : [])).map((l, k) => ({ ord: writes.length + k, ...l }));
  const replaced = decisions.filter((d) => d.valueRows !== null);
  const valueRows = replaced.flatMap((d) =>
    d.valueRows!.map((r) => ({ entity_urn: d.urn, entity_type: d.entityType, property_urn: r.propertyUrn, generation: String(r.generation), vals: r.values })),
  );
  const registry = decisions.flatMap((d) => d.registry);
  const jobs = decisions.flatMap((d) => d.jobs);

  const values = replaced.length === 0 ? EMPTY : sql`, values_input AS (
      SELECT * FROM jsonb_to_recordset(${await stringifyInTurns(valueRows)}::jsonb)
        AS p(entity_urn text, entity_type text, property_urn text, generation bigint, vals jsonb)
      WHERE (SELECT ok FROM ok)
    ), values_deleted AS (
      DELETE FROM property_value pv WHERE (SELECT ok FROM ok) AND pv.entity_urn = ANY(${replaced.map((d) => d.urn)}::text[])
        AND NOT EXISTS (SELECT 1 FROM values_input vi WHERE vi.entity_urn = pv.entity_urn AND vi.property_urn = pv.property_urn)
    ), values_upserted AS (
      INSERT INTO property_value (entity_urn, property_urn, entity_type, generation, "values")
      SELECT entity_urn, property_urn, entity_type, generation, vals FROM values_input
      ON CONFLICT (entity_urn, property_urn) DO UPDATE SET generation = EXCLUDED.generation, "values" = EXCLUDED."values"
      -- A row the write leaves as it was is not written again: an entity's write names every
      -- value it holds, and rewriting the unchanged ones left a dead row version each (the
      -- hard delete's cleanup rewrote every other value of each holder).
      WHERE (property_value.generation, property_value."values") IS DISTINCT FROM (EXCLUDED.generation, EXCLUDED."values")
    )`;
  // The entities whose aspects are written, by array wherever a table is joined to them (see writePreconditions).
  const written = [...new Set(writes.map((w) => w.urn))];
  // The hist CTE adds version max_version + 1; the newest `versionsKept` stay, counting it.
  const pruned = retention.versionsKept <= 0 ? EMPTY : sql`, pruned AS (
      DELETE FROM aspect h USING prev p
      WHERE h.urn = ANY(${written}::text[]) AND h.urn = p.urn AND h.aspect = p.aspect AND h.version > 0 AND h.version <= p.max_version + 1 - ${retention.versionsKept}
    )`;
  const events = decisions.flatMap((d) => d.events.map((e) => ({ urn: d.urn, entity_type: d.entityType, event: e.event, actor: d.createdBy, via: d.createdVia ?? null, detail: e.detail ?? null })));
  const eventsAdded = events.length === 0 ? EMPTY : sql`, events_added AS (
      INSERT INTO lifecycle_event (urn, entity_type, event, actor, via, detail)
      SELECT urn, entity_type, event, actor, via, detail FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb)
        AS v(urn text, entity_type text, event text, actor text, via text, detail jsonb) WHERE (SELECT ok FROM ok)
    )`;
  const jobsAdded = jobs.length === 0 ? EMPTY : sql`, jobs_added AS (
      INSERT INTO job (kind, payload)
      SELECT kind, payload FROM jsonb_to_recordset(${JSON.stringify(jobs)}::jsonb) AS j(kind text, payload jsonb) WHERE (SELECT ok FROM ok)
    )`;
  return sql`
    WITH ${writePreconditions(target, decisions, state)} input AS (
      SELECT * FROM jsonb_to_recordset(${await stringifyInTurns(writes)}::jsonb)
        AS i(ord int, urn text, entity_type text, aspect text, metadata jsonb, system_metadata jsonb, created_by text, created_via text, kept_as jsonb)
      WHERE (SELECT ok FROM ok)
    ), log_input AS (
      SELECT ord, urn, entity_type, aspect FROM input
      UNION ALL
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(logOnly)}::jsonb) AS l(ord int, urn text, entity_type text, aspect text)
      WHERE (SELECT ok FROM ok)
    ), prev AS (
      SELECT a.urn, a.aspect, COALESCE(i.kept_as, a.metadata) AS metadata, a.system_metadata, a.created_on, a.created_by, a.created_via,
             (SELECT MAX(h.version) FROM aspect h WHERE h.urn = a.urn AND h.aspect = a.aspect) AS max_version
      FROM aspect a JOIN input i ON a.urn = i.urn AND a.aspect = i.aspect AND a.version = 0
      WHERE a.urn = ANY(${written}::text[])
    ), hist AS (
      INSERT INTO aspect (urn, aspect, version, metadata, system_metadata, created_on, created_by, created_via)
      SELECT urn, aspect, max_version + 1, metadata, system_metadata, created_on, created_by, created_via FROM prev
    ), latest AS (
      INSERT INTO aspect (urn, aspect, version, metadata, system_metadata, created_on, created_by, created_via)
      SELECT urn, aspect, 0, metadata, system_metadata, now(), created_by, created_via FROM input
      ON CONFLICT (urn, aspect, version) DO UPDATE
        SET metadata = EXCLUDED.metadata, system_metadata = EXCLUDED.system_metadata,
            created_on = EXCLUDED.created_on, created_by = EXCLUDED.created_by, created_via = EXCLUDED.created_via
    )${pruned}${values}${registryChanges(registry)}${jobsAdded}${eventsAdded}, logged AS (
      INSERT INTO change_log (urn, entity_type, aspect, change_type, trace_parent)
      SELECT urn, min(entity_type), string_agg(aspect, ',' ORDER BY ord), 'UPSERT', ${activeTraceparent()}::text FROM log_input GROUP BY urn ORDER BY min(ord)
      RETURNING id, urn
    )
    SELECT id, urn FROM logged
    UNION ALL
    SELECT NULL::bigint, NULL::text FROM ok WHERE ok.ok`;
}

/**
 * The CTEs ending in `ok`. Checks that change nothing come first (`pre`), so that a
 * refused statement does not bump or create entities either.
 */
function writePreconditions(target: WriteTarget, decisions: readonly EntityWriteDecision[], state: WriteState): Sql {
  const relied = [...new Set(decisions.flatMap((d) => d.reliesOn))].map((urn) => {
    const record = state.properties.get(urn);
    if (!record) throw new Error(`a decision relied on ${urn}, which was not loaded`);
    return { urn, entity_version: String(record.entityVersion), generation: String(record.generation) };
  });
  const claimed = decisions.flatMap((d) => d.registry.flatMap((r) => (r.define ? [{ field: r.define.searchField, urn: r.urn }] : [])));
  const parents = target.kind === 'locked' ? [] : [...new Set(decisions.flatMap((d) => {
    const parent = state.entities.get(d.urn)?.parent;
    return parent ? [parent.urn] : [];
  }))];
  const checks: Sql[] = [];
  if (parents.length > 0) checks.push(sql`(SELECT count(*) FROM parents_locked) = ${parents.length}`);
  // The property entities relied on are share-locked: a definition change, which locks its
  // entity for update while it counts the values it would break (the propertyDefinition module),
  // waits for this statement, or this one for it and then finds the entity moved on.
  if (relied.length > 0) {
    checks.push(sql`(SELECT count(*) FROM relied_locked) = ${relied.length}`);
  }
  if (claimed.length > 0) {
    checks.push(sql`NOT EXISTS (SELECT 1 FROM jsonb_to_recordset(${JSON.stringify(claimed)}::jsonb) AS c(field text, urn text)
      JOIN structured_property sp ON sp.search_field = c.field AND sp.urn <> c.urn)`);
  }
  const reliedLocked =
    relied.length === 0
      ? EMPTY
      : sql`relied_locked AS (
      SELECT e.urn FROM entity e
      JOIN jsonb_to_recordset(${JSON.stringify(relied)}::jsonb) AS r(urn text, entity_version bigint, generation bigint) ON e.urn = r.urn AND e.version = r.entity_version
      JOIN structured_property sp ON sp.urn = r.urn AND sp.generation = r.generation
      WHERE e.urn = ANY(${relied.map((r) => r.urn)}::text[])
      FOR SHARE OF e
    ), `;
  const pre = sql`${parents.length > 0 ? sql`parents_locked AS (SELECT urn FROM entity WHERE urn = ANY(${parents}::text[]) FOR SHARE), ` : EMPTY}${reliedLocked}pre AS (
      SELECT ${checks.length > 0 ? join(checks, ' AND ') : sql`true`} AS ok
    ),`;
  const touched = decisions.map((d) => ({ urn: d.urn, entity_type: d.entityType, version: state.entities.get(d.urn)?.version ?? null }));
  if (target.kind === 'locked') {
    return sql`${pre} bumped AS (
      UPDATE entity SET version = version + 1 WHERE urn = ANY(${touched.map((t) => t.urn)}::text[]) AND (SELECT ok FROM pre)
    ), ok AS (SELECT ok FROM pre),`;
  }
  const bumps = touched.filter((t) => t.version !== null).length;
  // `urn = ANY(array)` as well as the join: the planner counts an array's items, but takes
  // any jsonb_to_recordset for 100 rows, and against a table of some tens of thousands of
  // entities it chose to read all of them for a hash join: 5 ms of PostgreSQL's time per
  // one-entity write at 20,000 datasets (found with auto_explain; BENCHMARKS.md, writes).
  // The statement's other joins of a table to the batch's rows say the same (prev,
  // pruned, the relied-on properties' check).
  return sql`${pre} guard AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(touched.map((t) => ({ ...t, version: t.version === null ? null : String(t.version) })))}::jsonb)
        AS g(urn text, entity_type text, version bigint)
    ), bumped AS (
      UPDATE entity e SET version = e.version + 1 FROM guard g
      WHERE e.urn = ANY(${touched.map((t) => t.urn)}::text[])
        AND e.urn = g.urn AND g.version IS NOT NULL AND e.version = g.version AND (SELECT ok FROM pre)
      RETURNING e.urn
    ), created AS (
      INSERT INTO entity (urn, entity_type, version)
      SELECT urn, entity_type, 1 FROM guard WHERE version IS NULL AND (SELECT ok FROM pre) AND (SELECT count(*) FROM bumped) = ${bumps}
      ON CONFLICT (urn) DO NOTHING RETURNING urn
    ), ok AS (
      SELECT (SELECT ok FROM pre) AND (SELECT count(*) FROM bumped) = ${bumps} AND (SELECT count(*) FROM created) = ${touched.length - bumps} AS ok
    ),`;
}

/** Registry rows: (re)definitions upserted, soft-delete flags set; only when there are any, as every change bumps the registry's epoch. */
function registryChanges(changes: readonly RegistryChange[]): Sql {
  if (changes.length === 0) return EMPTY;
  const rows = changes.map((c) => ({
    urn: c.urn,
    qualified_name: c.define?.qualifiedName ?? null,
    search_field: c.define?.searchField ?? null,
    value_type: c.define?.valueType ?? null,
    version: c.define?.version ?? null,
    generation: c.define && c.define.generation !== 'new' ? String(c.define.generation) : null,
    new_lineage: c.define?.lineage === 'new',
    migration: c.define?.migration ? activeMigrationJson(c.define.migration) : null,
    removed: c.removed,
  }));
  // A lineage starts at the statement's clock, not the transaction's start: a value write
  // that committed while this one waited for its locks belongs to the lineage before.
  return sql`, registry_input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS r(urn text, qualified_name text, search_field text, value_type text, version text, generation bigint, new_lineage boolean, migration jsonb, removed boolean)
      WHERE (SELECT ok FROM ok)
    ), registry_defined AS (
      INSERT INTO structured_property (urn, qualified_name, search_field, value_type, version, generation, removed, lineage_started_on, migration)
      SELECT urn, qualified_name, search_field, value_type, version,
             COALESCE(generation, nextval('structured_property_generation_seq')), COALESCE(removed, false), clock_timestamp(), migration
      FROM registry_input WHERE search_field IS NOT NULL
      ON CONFLICT (urn) DO UPDATE SET value_type = EXCLUDED.value_type, version = EXCLUDED.version, generation = EXCLUDED.generation,
        removed = COALESCE((SELECT r.removed FROM registry_input r WHERE r.urn = EXCLUDED.urn), structured_property.removed),
        lineage_started_on = CASE WHEN (SELECT r.new_lineage FROM registry_input r WHERE r.urn = EXCLUDED.urn) THEN EXCLUDED.lineage_started_on
                                  ELSE structured_property.lineage_started_on END,
        migration = EXCLUDED.migration
    ), registry_flagged AS (
      UPDATE structured_property sp SET removed = r.removed FROM registry_input r WHERE sp.urn = r.urn AND r.search_field IS NULL
    ), registry_reindexed AS (
      -- A migration's holders are indexed again at once, their values as the migration makes
      -- them (documentLoader translates), instead of as the job reaches each one: search and
      -- metadata tests follow the definition within the index's lag, as any write does.
      INSERT INTO change_log (urn, entity_type, aspect, change_type, trace_parent)
      SELECT pv.entity_urn, pv.entity_type, ${literal(ASPECT.structuredProperties)}, 'UPSERT', ${activeTraceparent()}::text
      FROM property_value pv JOIN registry_input r ON pv.property_urn = r.urn
      WHERE r.migration IS NOT NULL
    )`;
}
