/**
 * What /health reads of the database (store/health.ts), against a real PostgreSQL: the
 * changes waiting, counted up to a bound, and what counting them costs while the indexer
 * works through a large backlog. The indexer marks the oldest changes first, and their
 * entries stay in the pending index until vacuum; counted from the oldest up (or by a
 * bitmap scan, which reads the whole index before its limit), every probe during a
 * migration of 100,000 holders walked 100,000 of them (issue #39: /health's tail).
 */
import { vacuumChangeLog } from '../../../src/store/changeLog.js';
import { databaseHealth, HEALTH_TEXT, PENDING_COUNTED } from '../../../src/store/health.js';
import { postgresAvailableForTests } from '../../support/server.js';
import { openStoreDatabase, type StoreDatabase } from '../../support/storeDatabase.js';

/** Shared buffers the plan's pending count read. */
function pendingBuffers(plan: string): number {
  const lines = plan.split('\n');
  const count = lines.findIndex((l) => l.includes('InitPlan 1'));
  const hits = lines.slice(count).find((l) => l.includes('Buffers:'));
  if (!hits) throw new Error(`no buffers in the plan:\n${plan}`);
  return [...hits.matchAll(/(?:hit|read)=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

(postgresAvailableForTests() ? describe : describe.skip)('what /health reads of the database', () => {
  let s: StoreDatabase;

  beforeAll(async () => {
    s = await openStoreDatabase('store_health');
    // The backlog's marked entries must stay in the index for the test's length, as they do
    // between two runs of autovacuum during a migration.
    await s.query('ALTER TABLE change_log SET (autovacuum_enabled = false)');
  }, 60_000);

  afterAll(async () => {
    await s?.close();
  });

  const addChanges = (n: number) =>
    s.query(`INSERT INTO change_log (urn, entity_type, aspect, change_type)
      SELECT 'urn:li:dataset:(urn:li:dataPlatform:hive,h.' || i || ',PROD)', 'dataset', 'structuredProperties', 'UPSERT' FROM generate_series(1, ${n}) i`);

  test('changes waiting are counted up to the bound, and jobs by status', async () => {
    expect(await databaseHealth(s.db)).toEqual({ pending: 0, jobs: { pending: 0, running: 0, done: 0, failed: 0 }, indexBuilt: null });
    await addChanges(3);
    await s.query(`INSERT INTO job (kind, payload, status) VALUES ('evaluate-tests', '{}', 'pending'), ('evaluate-tests', '{}', 'done'), ('evaluate-tests', '{}', 'done')`);
    expect(await databaseHealth(s.db)).toMatchObject({ pending: 3, jobs: { pending: 1, running: 0, done: 2, failed: 0 } });
    await addChanges(PENDING_COUNTED + 500);
    expect((await databaseHealth(s.db)).pending).toBe(PENDING_COUNTED);
  });

  test('with 60,000 changes marked and 2,000 waiting, the count reads the newest entries only', async () => {
    await s.query('TRUNCATE change_log');
    await addChanges(60_000);
    await s.query('UPDATE change_log SET indexed_on = now()');
    await addChanges(2_000);
    await s.query('ANALYZE change_log');
    const plan = (await s.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${HEALTH_TEXT}`, [null])).map((r) => r['QUERY PLAN']).join('\n');
    expect((await databaseHealth(s.db)).pending).toBe(PENDING_COUNTED);
    // From the newest down: a few index pages and the heap pages of 1,000 rows (25 buffers
    // here). The statement before, a bitmap of the whole index: 1,342.
    expect(pendingBuffers(plan)).toBeLessThan(80);
  });

  test('with 60,000 changes marked and 200 waiting, the count walks the marked ones until the change log is vacuumed (as the indexer does), then not', async () => {
    await s.query('TRUNCATE change_log');
    await addChanges(60_000);
    await s.query('UPDATE change_log SET indexed_on = now()');
    await addChanges(200);
    const plan = async () => (await s.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${HEALTH_TEXT}`, [null])).map((r) => r['QUERY PLAN']).join('\n');
    // The first count looks at every marked change's row; later ones skip their entries, but still walk the index's pages.
    await plan();
    const walked = pendingBuffers(await plan());
    expect(walked).toBeGreaterThan(100);
    // Through the server's own driver, outside a transaction (VACUUM refuses one).
    await vacuumChangeLog(s.db);
    expect(pendingBuffers(await plan())).toBeLessThan(walked / 5);
    expect((await databaseHealth(s.db)).pending).toBe(200);
  });
});
