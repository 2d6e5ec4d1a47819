/**
 * Reads of the relational index of test results (table test_result, kept by statement
 * triggers on the aspect table: for the latest testResults of every entity, the URNs of
 * the tests it passes and of those it fails) and the daily snapshots of the trend.
 */
import { ASPECT } from '../domain/aspects/index.js';
import { literal, sql } from './sql.js';
import type { Queryable } from './database.js';

export type Outcome = 'SUCCESS' | 'FAILURE';

export interface ResultCounts {
  readonly passing: number;
  readonly failing: number;
}

/** Passing and failing entities per test, for the tests named (absent: none held). One pass over the index. */
export async function countResults(db: Queryable, testUrns: readonly string[]): Promise<Map<string, ResultCounts>> {
  const out = new Map<string, ResultCounts>();
  if (testUrns.length === 0) return out;
  const tests = testUrns as string[];
  const rows = await db.query<{ test_urn: string; outcome: string; n: bigint }>(sql`
    SELECT t AS test_urn, 'SUCCESS' AS outcome, count(*) AS n FROM test_result, unnest(passing) t WHERE t = ANY(${tests}::text[]) GROUP BY t
    UNION ALL
    SELECT t, 'FAILURE', count(*) FROM test_result, unnest(failing) t WHERE t = ANY(${tests}::text[]) GROUP BY t`);
  for (const r of rows) {
    const prev = out.get(r.test_urn) ?? { passing: 0, failing: 0 };
    out.set(r.test_urn, r.outcome === 'SUCCESS' ? { ...prev, passing: Number(r.n) } : { ...prev, failing: Number(r.n) });
  }
  return out;
}

/** How many entities of each type exist. */
export async function countEntitiesByType(db: Queryable, entityTypes: readonly string[]): Promise<Map<string, number>> {
  if (entityTypes.length === 0) return new Map();
  const rows = await db.query<{ entity_type: string; n: bigint }>(sql`
    SELECT entity_type, count(*) AS n FROM entity WHERE entity_type = ANY(${entityTypes as string[]}::text[]) GROUP BY entity_type`);
  return new Map(rows.map((r) => [r.entity_type, Number(r.n)]));
}

/** Entities holding a result of any of the tests (of any test when null), in URN order after `afterUrn`. */
export async function holdersOf(db: Queryable, testUrns: readonly string[] | null, afterUrn: string | null, limit: number): Promise<string[]> {
  if (testUrns?.length === 0) return [];
  const after = afterUrn ?? '';
  const rows = testUrns
    ? await db.query<{ entity_urn: string }>(sql`
        SELECT entity_urn FROM test_result
        WHERE (passing && ${testUrns as string[]}::text[] OR failing && ${testUrns as string[]}::text[]) AND entity_urn > ${after}
        ORDER BY entity_urn LIMIT ${limit}`)
    : await db.query<{ entity_urn: string }>(sql`
        SELECT entity_urn FROM test_result WHERE (cardinality(passing) > 0 OR cardinality(failing) > 0) AND entity_urn > ${after}
        ORDER BY entity_urn LIMIT ${limit}`);
  return rows.map((r) => r.entity_urn);
}

/** How many entities hold a result of any of the tests (of any test when null). */
export async function countHolders(db: Queryable, testUrns: readonly string[] | null): Promise<number> {
  if (testUrns?.length === 0) return 0;
  const rows = testUrns
    ? await db.query<{ n: bigint }>(sql`
        SELECT count(*) AS n FROM test_result WHERE passing && ${testUrns as string[]}::text[] OR failing && ${testUrns as string[]}::text[]`)
    : await db.query<{ n: bigint }>(sql`SELECT count(*) AS n FROM test_result WHERE cardinality(passing) > 0 OR cardinality(failing) > 0`);
  return Number(rows[0]?.n ?? 0);
}

/** Those of `urns` that hold any test result. */
export async function entitiesWithResults(db: Queryable, urns: readonly string[]): Promise<Set<string>> {
  if (urns.length === 0) return new Set();
  const rows = await db.query<{ entity_urn: string }>(sql`
    SELECT entity_urn FROM test_result WHERE entity_urn = ANY(${urns as string[]}::text[]) AND (cardinality(passing) > 0 OR cardinality(failing) > 0)`);
  return new Set(rows.map((r) => r.entity_urn));
}

/** Entities with one outcome of one test, in URN order after `afterUrn`. */
export async function entitiesWithOutcome(db: Queryable, testUrn: string, outcome: Outcome, afterUrn: string | null, limit: number): Promise<string[]> {
  const after = afterUrn ?? '';
  const test = [testUrn];
  const rows =
    outcome === 'SUCCESS'
      ? await db.query<{ entity_urn: string }>(sql`
          SELECT entity_urn FROM test_result WHERE passing @> ${test}::text[] AND entity_urn > ${after} ORDER BY entity_urn LIMIT ${limit}`)
      : await db.query<{ entity_urn: string }>(sql`
          SELECT entity_urn FROM test_result WHERE failing @> ${test}::text[] AND entity_urn > ${after} ORDER BY entity_urn LIMIT ${limit}`);
  return rows.map((r) => r.entity_urn);
}

export interface DailyCounts extends ResultCounts {
  readonly testUrn: string;
  /** The day (UTC), `YYYY-MM-DD`. */
  readonly day: string;
  readonly notApplicable: number;
}

/** Records today's (UTC) counts of each test, replacing what today held. */
export async function saveTodaysCounts(db: Queryable, counts: ReadonlyArray<Omit<DailyCounts, 'day'>>): Promise<void> {
  if (counts.length === 0) return;
  const rows = counts.map((c) => ({ test_urn: c.testUrn, passing: c.passing, failing: c.failing, not_applicable: c.notApplicable }));
  await db.execute(sql`
    INSERT INTO test_result_daily (test_urn, day, passing, failing, not_applicable)
    SELECT test_urn, (now() AT TIME ZONE 'UTC')::date, passing, failing, not_applicable
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(test_urn text, passing int, failing int, not_applicable int)
    ON CONFLICT (test_urn, day) DO UPDATE SET passing = EXCLUDED.passing, failing = EXCLUDED.failing,
      not_applicable = EXCLUDED.not_applicable, updated_on = now()`);
}

/** The daily counts of the tests from `days` days ago (UTC) to today, oldest first. */
export async function dailyCounts(db: Queryable, testUrns: readonly string[], days: number): Promise<DailyCounts[]> {
  if (testUrns.length === 0) return [];
  const rows = await db.query<{ test_urn: string; day: string; passing: number; failing: number; not_applicable: number }>(sql`
    SELECT test_urn, to_char(day, 'YYYY-MM-DD') AS day, passing, failing, not_applicable FROM test_result_daily
    WHERE test_urn = ANY(${testUrns as string[]}::text[]) AND day > (now() AT TIME ZONE 'UTC')::date - ${days}::int
    ORDER BY day, test_urn`);
  return rows.map((r) => ({ testUrn: r.test_urn, day: r.day, passing: r.passing, failing: r.failing, notApplicable: r.not_applicable }));
}

/** Forgets the trend of tests that are gone. */
export async function dropDailyCounts(db: Queryable, testUrns: readonly string[]): Promise<void> {
  if (testUrns.length === 0) return;
  await db.execute(sql`DELETE FROM test_result_daily WHERE test_urn = ANY(${testUrns as string[]}::text[])`);
}

/**
 * Removes the results of tests that are gone from the earlier versions of every
 * testResults aspect (the latest is rewritten through the write path): a hard-deleted
 * test leaves no result behind. Returns how many versions changed.
 */
export async function dropFromHistory(db: Queryable, testUrns: readonly string[]): Promise<number> {
  if (testUrns.length === 0) return 0;
  const tests = testUrns as string[];
  return db.execute(sql`
    UPDATE aspect SET metadata = jsonb_set(jsonb_set(metadata,
        '{passing}', (SELECT coalesce(jsonb_agg(r), '[]'::jsonb) FROM jsonb_array_elements(coalesce(metadata->'passing', '[]'::jsonb)) r WHERE NOT (r->>'test' = ANY(${tests}::text[])))),
        '{failing}', (SELECT coalesce(jsonb_agg(r), '[]'::jsonb) FROM jsonb_array_elements(coalesce(metadata->'failing', '[]'::jsonb)) r WHERE NOT (r->>'test' = ANY(${tests}::text[]))))
    WHERE aspect = ${literal(ASPECT.testResults)} AND version > 0
      AND EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce(metadata->'passing', '[]'::jsonb) || coalesce(metadata->'failing', '[]'::jsonb)) r
                  WHERE r->>'test' = ANY(${tests}::text[]))`);
}
