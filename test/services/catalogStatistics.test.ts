/**
 * The catalog's tables are analyzed after a large load (src/store/statistics.ts, called
 * by the search indexer once idle): a catalog loaded from empty was otherwise planned as
 * empty until autovacuum came by, up to minutes later, and its writes cost PostgreSQL
 * twice the CPU meanwhile.
 */
import { ROOT_PRINCIPAL } from '../../src/domain/policies/evaluate.js';
import type { Caller } from '../../src/services/caller.js';
import { ANALYZED_TABLES } from '../../src/store/statistics.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';
import { searchAvailableForTests } from '../support/server.js';
import { datasetUrn, indexCaughtUp, serviceCatalog } from '../support/serviceCatalog.js';
import { waitFor } from '../support/waitFor.js';

const ROOT: Caller = { actor: ROOT_PRINCIPAL, scope: 'admin', via: 'rest-v3' };
const LOADED = 150;

(searchAvailableForTests() ? describe : describe.skip)('the catalog tables after a large load', () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await startTestRuntime({ search: true, tuning: { catalogAnalyzeAfter: 100 } });
  }, 120_000);

  afterAll(async () => {
    await rt?.stop();
  });

  /** ANALYZE run by a session (autovacuum's are counted apart), per table, with the planner's row count. */
  const analyzed = async () =>
    new Map(
      (
        await rt.database.db.query<{ relname: string; n: number; tuples: number }>({
          text: `SELECT s.relname, s.analyze_count::int AS n, c.reltuples::float8 AS tuples FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = ANY($1::text[])`,
          values: [[...ANALYZED_TABLES]],
        })
      ).map((r) => [r.relname, r]),
    );

  test('once the index has caught up with more changes than the threshold, the tables are analyzed and planned with their rows', async () => {
    const before = await analyzed();
    expect([...before.keys()].sort()).toEqual([...ANALYZED_TABLES].sort());
    const urns = Array.from({ length: LOADED }, (_, i) => datasetUrn(`stats.t${i}`));
    await serviceCatalog(rt, ROOT).createDatasets(urns);
    await indexCaughtUp(rt);
    const after = await waitFor('the catalog tables analyzed', 60_000, async () => {
      const now = await analyzed();
      return ANALYZED_TABLES.every((t) => now.get(t)!.n > before.get(t)!.n) ? now : undefined;
    });
    expect(after.get('entity')!.tuples).toBeGreaterThanOrEqual(LOADED);
  }, 120_000);
});
