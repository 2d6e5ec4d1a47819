/**
 * The job rows of metadata-test evaluation (kind evaluate-tests): queued when tests
 * change, merged while they wait, and a running job's cursor, so that a job handed to
 * another replica goes on where it stopped.
 */
import { EVALUATE_TESTS } from '../domain/jobKinds.js';
import { sql } from './sql.js';
import type { Queryable, Tx } from './database.js';

/**
 * Queues the evaluation of changed tests `delaySeconds` from now. Tests changed in
 * quick succession (ten created one after another) join the job still waiting, so the
 * catalog is read once for all of them; the wait ends `maxDelaySeconds` after the
 * first change at the latest. Returns the job's id.
 */
export async function enqueueChangedTests(tx: Tx, tests: readonly string[], delaySeconds: number, maxDelaySeconds: number): Promise<bigint> {
  await tx.query(sql`SELECT 1 AS one FROM pg_advisory_xact_lock(hashtext(${`job:${EVALUATE_TESTS}:changed`}))`);
  const waiting = await tx.query<{ id: bigint; tests: string[] }>(sql`
    SELECT id, ARRAY(SELECT jsonb_array_elements_text(payload->'tests')) AS tests FROM job
    WHERE kind = ${EVALUATE_TESTS} AND status = 'pending' AND payload->>'trigger' = 'changed' AND NOT (payload ? 'cursor')
    ORDER BY id LIMIT 1 FOR UPDATE`);
  if (waiting[0]) {
    const merged = [...new Set([...waiting[0].tests, ...tests])].sort();
    await tx.execute(sql`
      UPDATE job SET payload = jsonb_set(payload, '{tests}', ${JSON.stringify(merged)}::jsonb),
                     run_after = LEAST(created_on + make_interval(secs => ${maxDelaySeconds}), now() + make_interval(secs => ${delaySeconds}))
      WHERE id = ${waiting[0].id}`);
    return waiting[0].id;
  }
  const payload = { trigger: 'changed', tests: [...new Set(tests)].sort() };
  const rows = await tx.query<{ id: bigint }>(sql`
    INSERT INTO job (kind, payload, run_after) VALUES (${EVALUATE_TESTS}, ${JSON.stringify(payload)}::jsonb, now() + make_interval(secs => ${delaySeconds}))
    RETURNING id`);
  return rows[0]!.id;
}

/** Records how far a running job got (its payload's `cursor`). */
export async function saveJobCursor(db: Queryable, id: bigint, cursor: unknown): Promise<void> {
  await db.execute(sql`
    UPDATE job SET payload = payload || jsonb_build_object('cursor', ${JSON.stringify(cursor)}::jsonb) WHERE id = ${id} AND status = 'running'`);
}
