/**
 * What /metrics reads of the change log and the job table (store/workState.ts), against a
 * real PostgreSQL: the index's position against the log's, the changes waiting, and the
 * items jobs have left; the log's position survives the pruning of indexed rows.
 */
import { pruneIndexed } from '../../../src/store/changeLog.js';
import { workState } from '../../../src/store/workState.js';
import { postgresAvailableForTests } from '../../support/server.js';
import { arrange, openStoreDatabase, type StoreDatabase } from '../../support/storeDatabase.js';

const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,ws.${name},PROD)`;

(postgresAvailableForTests() ? describe : describe.skip)('work state for /metrics', () => {
  let s: StoreDatabase;

  beforeAll(async () => {
    s = await openStoreDatabase('store_work_state');
  }, 60_000);

  afterAll(async () => {
    await s?.close();
  });

  test('an empty log is at 0 with nothing waiting', async () => {
    expect(await workState(s.db)).toEqual({ changeLogPosition: 0, indexedPosition: 0, pendingChanges: 0, oldestPendingSeconds: 0, jobs: [] });
  });

  test('changes not yet indexed are the lag; indexed, the index is at the log position; pruned, the position stays', async () => {
    await arrange(s.store, [0, 1, 2].map((i) => ({ urn: dataset(`t${i}`), aspects: { status: { removed: false } } })));
    const ids = (await s.query<{ id: string }>('SELECT id::text AS id FROM change_log ORDER BY id')).map((r) => Number(r.id));
    expect(ids.length).toBeGreaterThanOrEqual(3);
    const head = ids.at(-1)!;

    // The oldest change waits 5 s already (its time set back, as the clock would have moved on).
    await s.query("UPDATE change_log SET created_on = now() - interval '5 seconds' WHERE id = $1", [ids[0]]);
    const behind = await workState(s.db);
    expect(behind).toMatchObject({ changeLogPosition: head, indexedPosition: ids[0]! - 1, pendingChanges: ids.length });
    expect(behind.oldestPendingSeconds).toBeGreaterThanOrEqual(5);

    // The first change indexed: the index is at it.
    await s.query('UPDATE change_log SET indexed_on = now() WHERE id = $1', [ids[0]]);
    expect(await workState(s.db)).toMatchObject({ changeLogPosition: head, indexedPosition: ids[0], pendingChanges: ids.length - 1 });

    await s.query('UPDATE change_log SET indexed_on = now() WHERE indexed_on IS NULL');
    expect(await workState(s.db)).toMatchObject({ changeLogPosition: head, indexedPosition: head, pendingChanges: 0, oldestPendingSeconds: 0 });

    // Every indexed row pruned (as after a quiet day): the log got as far as before.
    expect(await pruneIndexed(s.db, 0)).toBe(ids.length);
    expect(await s.query('SELECT id FROM change_log')).toEqual([]);
    expect(await workState(s.db)).toMatchObject({ changeLogPosition: head, indexedPosition: head, pendingChanges: 0 });

    // The next change goes on from there.
    await arrange(s.store, [{ urn: dataset('t3'), aspects: { status: { removed: false } } }]);
    const next = await workState(s.db);
    expect(next.changeLogPosition).toBeGreaterThan(head);
    expect(next.pendingChanges).toBeGreaterThan(0);
    expect(next.indexedPosition).toBeGreaterThanOrEqual(head);
    expect(next.indexedPosition).toBeLessThan(next.changeLogPosition);
  });

  test('jobs by kind and status, with the items pending and running jobs have left', async () => {
    await s.query(
      `INSERT INTO job (kind, payload, status, total, done) VALUES
         ('cleanup-property-values', '{}', 'pending', 10, 0),
         ('cleanup-property-values', '{}', 'running', 5, 2),
         ('cleanup-property-values', '{}', 'done', 7, 7),
         ('bulk-edit-values', '{}', 'failed', 9, 4),
         ('evaluate-tests', '{}', 'running', NULL, 0)`,
    );
    const byKey = Object.fromEntries((await workState(s.db)).jobs.map((j) => [`${j.kind} ${j.status}`, { count: j.count, remaining: j.remaining }]));
    expect(byKey).toEqual({
      'cleanup-property-values pending': { count: 1, remaining: 10 },
      'cleanup-property-values running': { count: 1, remaining: 3 },
      'cleanup-property-values done': { count: 1, remaining: 0 },
      // A job given up has nothing left to do: its items are not counted as remaining.
      'bulk-edit-values failed': { count: 1, remaining: 0 },
      'evaluate-tests running': { count: 1, remaining: 0 },
    });
  });
});
