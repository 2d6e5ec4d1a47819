/**
 * Waiting for continuous metadata-test evaluation: the evaluator has handled every
 * change below the horizon, no evaluation job is waiting or running, and (when asked)
 * the search index has every change, the evaluator's result writes included.
 */
import type { Runtime } from '../../src/boot/runtime.js';
import { sql } from '../../src/store/sql.js';
import { waitFor } from './waitFor.js';

type Parts = Pick<Runtime, 'database' | 'testEvaluator'>;

export async function evaluationSettled(runtime: Parts, options: { indexed?: boolean; timeoutMs?: number } = {}): Promise<void> {
  const db = runtime.database.db;
  await waitFor('test evaluation to settle', options.timeoutMs ?? 60_000, async () => {
    const [jobs] = await db.query<{ n: bigint }>(sql`SELECT count(*) AS n FROM job WHERE kind = 'evaluate-tests' AND status IN ('pending', 'running')`);
    if (Number(jobs!.n) > 0) return undefined;
    if (!(await runtime.testEvaluator!.caughtUp())) return undefined;
    // A job finishing writes results the evaluator then passes over: settled once both hold together.
    const [again] = await db.query<{ n: bigint }>(sql`SELECT count(*) AS n FROM job WHERE kind = 'evaluate-tests' AND status IN ('pending', 'running')`);
    if (Number(again!.n) > 0) return undefined;
    if (options.indexed) {
      const [pending] = await db.query<{ n: bigint }>(sql`SELECT count(*) AS n FROM change_log WHERE indexed_on IS NULL`);
      if (Number(pending!.n) > 0) return undefined;
    }
    return true;
  }, 100);
}

/** The test URNs an entity passes and fails, as stored (its testResults aspect). */
export async function storedOutcomes(runtime: Pick<Runtime, 'database'>, urn: string): Promise<{ passing: string[]; failing: string[] } | null> {
  const rows = await runtime.database.db.query<{ metadata: { passing: Array<{ test: string }>; failing: Array<{ test: string }> } }>(sql`
    SELECT metadata FROM aspect WHERE urn = ${urn} AND aspect = 'testResults' AND version = 0`);
  if (!rows[0]) return null;
  return { passing: rows[0].metadata.passing.map((r) => r.test), failing: rows[0].metadata.failing.map((r) => r.test) };
}
