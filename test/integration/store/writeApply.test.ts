/**
 * The write path's one applier (store/writeApply.ts) against a real PostgreSQL: a batch
 * of decisions in one statement, what it stores, and every guard that refuses it when
 * the state it was decided on moved (the optimistic path), or aborts the locked one.
 */
import { CLEANUP_PROPERTY_VALUES } from '../../../src/domain/jobKinds.js';
import type { EntityWriteDecision } from '../../../src/domain/writes/writeDecision.js';
import type { Db } from '../../../src/store/database.js';
import { sql } from '../../../src/store/sql.js';
import { inTransaction } from '../../../src/store/transaction.js';
import { applyWrites, WriteConflict } from '../../../src/store/writeApply.js';
import { loadWriteState, type LoadRequest, type WriteTarget } from '../../../src/store/writeLoad.js';
import { waitFor } from '../../support/waitFor.js';
import { postgresAvailableForTests } from '../../support/server.js';
import { arrange, definition, openStoreDatabase, type StoreDatabase } from '../../support/storeDatabase.js';

const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,apply.${name},PROD)`;
const P = (name: string) => `urn:li:structuredProperty:apply.${name}`;
const ACTOR = 'urn:li:corpuser:tester';

function decision(urn: string, extra: Partial<EntityWriteDecision> = {}): EntityWriteDecision {
  const entityType = urn.split(':')[2]!;
  return { urn, entityType, createdBy: ACTOR, creates: null, writes: [], valueRows: null, registry: [], jobs: [], reliesOn: [], events: [], results: [], reports: {}, ...extra };
}
const row = (aspect: string, metadata: unknown, revision: string) => ({ aspect, metadata, systemMetadata: { version: revision } });
const loadOf = (urns: string[], extra: Partial<LoadRequest> = {}): LoadRequest => ({
  entities: urns.map((urn) => ({ urn, entityType: urn.split(':')[2]!, create: true, values: true, parent: null })),
  aspects: ['structuredProperties'],
  properties: [],
  searchFields: [],
  ...extra,
});

(postgresAvailableForTests() ? describe : describe.skip)('the write applier', () => {
  let s: StoreDatabase;
  let optimistic: WriteTarget;
  const versionOf = async (urn: string) => (await s.query<{ v: string }>('SELECT version::text AS v FROM entity WHERE urn = $1', [urn]))[0]?.v;
  const changeRows = async (urn: string) => s.query<{ aspect: string; change_type: string }>('SELECT aspect, change_type FROM change_log WHERE urn = $1 ORDER BY id', [urn]);
  const epoch = async () => (await s.query<{ e: string }>('SELECT epoch::text AS e FROM registry_epoch'))[0]!.e;

  beforeAll(async () => {
    s = await openStoreDatabase('store_apply');
    optimistic = { kind: 'optimistic', ...s.store };
    await arrange(s.store, ['a', 'b'].map((n) => ({ urn: P(n), aspects: { propertyDefinition: definition(`apply.${n}`) } })));
  }, 60_000);

  afterAll(async () => {
    await s?.close();
  });

  test('one statement stores the latest aspect and its history, replaces the value rows, bumps the version and logs one row per entity', async () => {
    const urn = dataset('stored');
    await arrange(s.store, [{ urn, aspects: { status: { removed: false } } }]);
    const generation = (await loadWriteState(optimistic, loadOf([], { properties: [P('a'), P('b')] }))).properties;
    const first = await loadWriteState(optimistic, loadOf([urn]));
    const ids = await applyWrites(optimistic, [decision(urn, {
      writes: [row('structuredProperties', { properties: [{ propertyUrn: P('a'), values: [{ string: 'one' }] }] }, '1'), row('datasetProperties', { description: 'd' }, '1')],
      valueRows: [{ propertyUrn: P('a'), generation: generation.get(P('a'))!.generation, values: [{ string: 'one' }] }],
    })], first);
    expect([...ids!.keys()]).toEqual([urn]);
    const before = await versionOf(urn);
    const second = await loadWriteState(optimistic, loadOf([urn]));
    await applyWrites(optimistic, [decision(urn, {
      writes: [row('structuredProperties', { properties: [{ propertyUrn: P('b'), values: [{ string: 'two' }] }] }, '2')],
      valueRows: [{ propertyUrn: P('b'), generation: generation.get(P('b'))!.generation, values: [{ string: 'two' }] }],
    })], second);
    expect(await versionOf(urn)).toBe(String(BigInt(before!) + 1n));
    expect(await s.query('SELECT version::int AS version, metadata FROM aspect WHERE urn = $1 AND aspect = $2 ORDER BY version', [urn, 'structuredProperties'])).toEqual([
      { version: 0, metadata: { properties: [{ propertyUrn: P('b'), values: [{ string: 'two' }] }] } },
      { version: 1, metadata: { properties: [{ propertyUrn: P('a'), values: [{ string: 'one' }] }] } },
    ]);
    expect(await s.query('SELECT property_urn, "values" FROM property_value WHERE entity_urn = $1', [urn])).toEqual([{ property_urn: P('b'), values: [{ string: 'two' }] }]);
    expect((await changeRows(urn)).slice(-2)).toEqual([
      { aspect: 'structuredProperties,datasetProperties', change_type: 'UPSERT' },
      { aspect: 'structuredProperties', change_type: 'UPSERT' },
    ]);
  });

  test('a value row the write leaves as it was is not written again; a changed one is, and a dropped one is deleted', async () => {
    const urn = dataset('unchangedRows');
    const generation = (await loadWriteState(optimistic, loadOf([], { properties: [P('a'), P('b')] }))).properties;
    const rowOf = (name: string, value: string) => ({ propertyUrn: P(name), generation: generation.get(P(name))!.generation, values: [{ string: value }] });
    const write = async (rows: ReturnType<typeof rowOf>[]) => {
      const metadata = { properties: rows.map((r) => ({ propertyUrn: r.propertyUrn, values: r.values })) };
      await applyWrites(optimistic, [decision(urn, { writes: [row('structuredProperties', metadata, 'x')], valueRows: rows })], await loadWriteState(optimistic, loadOf([urn])));
    };
    // xmin: the transaction that wrote the row's current version.
    const versions = async () => Object.fromEntries((await s.query<{ property_urn: string; xmin: string }>('SELECT property_urn, xmin::text FROM property_value WHERE entity_urn = $1', [urn])).map((r) => [r.property_urn, r.xmin]));
    await write([rowOf('a', 'kept'), rowOf('b', 'first')]);
    const before = await versions();
    await write([rowOf('a', 'kept'), rowOf('b', 'second')]);
    const after = await versions();
    expect(after[P('a')]).toBe(before[P('a')]);
    expect(after[P('b')]).not.toBe(before[P('b')]);
    await write([rowOf('b', 'second')]);
    expect(await s.query('SELECT property_urn, "values" FROM property_value WHERE entity_urn = $1', [urn])).toEqual([{ property_urn: P('b'), values: [{ string: 'second' }] }]);
    expect((await versions())[P('b')]).toBe(after[P('b')]);
  });

  test('a decision that says how the replaced version is kept stores it so in history, beside the latest as written (the cleanup: hard means gone)', async () => {
    const urn = dataset('keptAs');
    const stored = { properties: [{ propertyUrn: P('a'), values: [{ string: 'gone' }] }, { propertyUrn: P('b'), values: [{ string: 'kept' }] }] };
    await applyWrites(optimistic, [decision(urn, { writes: [row('structuredProperties', stored, '1')] })], await loadWriteState(optimistic, loadOf([urn])));
    const state = await loadWriteState(optimistic, loadOf([urn]));
    const latest = { properties: [{ propertyUrn: P('b'), values: [{ string: 'kept' }] }] };
    await applyWrites(optimistic, [decision(urn, { writes: [{ ...row('structuredProperties', latest, '2'), previousKeptAs: latest }] })], state);
    expect(await s.query('SELECT version::int AS version, metadata FROM aspect WHERE urn = $1 AND aspect = $2 ORDER BY version', [urn, 'structuredProperties'])).toEqual([
      { version: 0, metadata: latest },
      { version: 1, metadata: latest },
    ]);
    expect(await s.query("SELECT count(*)::int AS n FROM aspect WHERE urn = $1 AND metadata::text LIKE '%gone%'", [urn])).toEqual([{ n: 0 }]);
  });

  test('a new entity is created by the statement, and its key aspect logged after the aspects written', async () => {
    const urn = dataset('created');
    const state = await loadWriteState(optimistic, loadOf([urn]));
    await applyWrites(optimistic, [decision(urn, { creates: { keyAspect: 'datasetKey' }, writes: [row('status', { removed: false }, '1')] })], state);
    expect(await versionOf(urn)).toBe('1');
    expect(await changeRows(urn)).toEqual([{ aspect: 'status,datasetKey', change_type: 'UPSERT' }]);
  });

  test('a write that changes no registry row leaves the registry epoch alone, so searches keep their cached registry', async () => {
    const urn = dataset('stored');
    const before = await epoch();
    await applyWrites(optimistic, [decision(urn, { writes: [row('datasetProperties', { description: 'again' }, '2')] })], await loadWriteState(optimistic, loadOf([urn])));
    expect(await epoch()).toBe(before);
  });

  test('a one-entity write reads no table whole, however many entities the catalog holds', async () => {
    // 20,000 entities (and as many aspects and value rows), analyzed: with jsonb_to_recordset taken for 100 rows, the planner
    // chose to read the whole entity table for the version bump of one entity (5 ms of
    // PostgreSQL's time per write at this size).
    await s.query(`INSERT INTO entity (urn, entity_type, version)
      SELECT 'urn:li:dataset:(urn:li:dataPlatform:hive,apply.many' || g || ',PROD)', 'dataset', 1 FROM generate_series(1, 20000) g`);
    // Each with a structuredProperties aspect and a value row, so that those tables are of the same size.
    await s.query(`INSERT INTO aspect (urn, aspect, version, metadata, created_by)
      SELECT urn, 'structuredProperties', 0, '{"properties": []}', 'x' FROM entity WHERE urn LIKE '%apply.many%'`);
    await s.query(`INSERT INTO property_value (entity_urn, property_urn, entity_type, generation, "values")
      SELECT urn, $1, 'dataset', 1, '[{"string": "x"}]' FROM entity WHERE urn LIKE '%apply.many%'`, [P('b')]);
    const urn = dataset('planned');
    await arrange(s.store, [{ urn, aspects: { status: { removed: false } } }]);
    await s.query('ANALYZE');
    const generation = (await loadWriteState(optimistic, loadOf([], { properties: [P('a')] }))).properties.get(P('a'))!.generation;
    const state = await loadWriteState(optimistic, loadOf([urn], { properties: [P('a')] }));
    const scans = await s.db.transaction(async (tx) => {
      // Sequential scans as this connection counts them (not yet flushed, so they may
      // include earlier transactions'): read before and after the statement, on its connection.
      const counted = async () => new Map((await tx.query<{ relname: string; n: string }>(sql`
        SELECT relname, pg_stat_get_xact_numscans(oid)::text AS n FROM pg_class
        WHERE relname IN ('entity', 'aspect', 'property_value', 'change_log')`)).map((r) => [r.relname, BigInt(r.n)]));
      const before = await counted();
      // The optimistic statement, run on this transaction's connection so that its scans are counted there.
      const db: Db = { kind: 'pool', query: (st) => tx.query(st), execute: (st) => tx.execute(st), transaction: () => Promise.reject(new Error('not here')) };
      const ids = await applyWrites({ kind: 'optimistic', db }, [decision(urn, {
        writes: [row('structuredProperties', { properties: [{ propertyUrn: P('a'), values: [{ string: 'planned' }] }] }, '1')],
        valueRows: [{ propertyUrn: P('a'), generation, values: [{ string: 'planned' }] }],
        reliesOn: [P('a')],
      })], state);
      expect([...ids!.keys()]).toEqual([urn]);
      const after = await counted();
      return Object.fromEntries([...after].map(([table, n]) => [table, Number(n - (before.get(table) ?? 0n))]));
    });
    expect(scans).toEqual({ aspect: 0, change_log: 0, entity: 0, property_value: 0 });
  });

  test('decisions that change nothing run no statement', async () => {
    const urn = dataset('stored');
    const before = await versionOf(urn);
    expect(await applyWrites(optimistic, [decision(urn)], await loadWriteState(optimistic, loadOf([urn])))).toEqual(new Map());
    expect(await versionOf(urn)).toBe(before);
  });

  describe('the optimistic guard', () => {
    test('refuses when another writer bumped the entity after the load, and writes nothing', async () => {
      const urn = dataset('raced');
      await arrange(s.store, [{ urn, aspects: { status: { removed: false } } }]);
      const state = await loadWriteState(optimistic, loadOf([urn]));
      await s.query('UPDATE entity SET version = version + 1 WHERE urn = $1', [urn]);
      const bumped = await versionOf(urn);
      const logged = (await changeRows(urn)).length;
      expect(await applyWrites(optimistic, [decision(urn, { writes: [row('status', { removed: true }, '2')], valueRows: [] })], state)).toBeNull();
      expect(await versionOf(urn)).toBe(bumped);
      expect(await changeRows(urn)).toHaveLength(logged);
      expect(await s.query("SELECT metadata FROM aspect WHERE urn = $1 AND aspect = 'status'", [urn])).toEqual([{ metadata: { removed: false } }]);
    });

    test('a refused batch creates none of its new entities', async () => {
      const existing = dataset('batch.old');
      const fresh = dataset('batch.new');
      await arrange(s.store, [{ urn: existing, aspects: { status: { removed: false } } }]);
      const state = await loadWriteState(optimistic, loadOf([existing, fresh]));
      await s.query('UPDATE entity SET version = version + 1 WHERE urn = $1', [existing]);
      const writes = [row('status', { removed: true }, '1')];
      expect(await applyWrites(optimistic, [decision(existing, { writes }), decision(fresh, { creates: { keyAspect: 'datasetKey' }, writes })], state)).toBeNull();
      expect(await versionOf(fresh)).toBeUndefined();
    });

    test('refuses when an entity it creates was created by someone else meanwhile', async () => {
      const urn = dataset('both.create');
      const state = await loadWriteState(optimistic, loadOf([urn]));
      await arrange(s.store, [{ urn, aspects: { status: { removed: false } } }]);
      expect(await applyWrites(optimistic, [decision(urn, { creates: { keyAspect: 'datasetKey' }, writes: [row('status', { removed: true }, '1')] })], state)).toBeNull();
    });

    test("refuses a schema field's write when its dataset was deleted meanwhile", async () => {
      const parent = dataset('parent');
      const field = `urn:li:schemaField:(${parent},id)`;
      await arrange(s.store, [{ urn: parent, aspects: { status: { removed: false } } }]);
      const state = await loadWriteState(optimistic, { ...loadOf([]), entities: [{ urn: field, entityType: 'schemaField', create: true, values: false, parent }] });
      await s.query('DELETE FROM entity WHERE urn = $1', [parent]);
      expect(await applyWrites(optimistic, [decision(field, { creates: { keyAspect: 'schemaFieldKey' }, writes: [row('status', { removed: false }, '1')] })], state)).toBeNull();
      expect(await versionOf(field)).toBeUndefined();
    });

    test('refuses when a property the decision relied on changed (definition or status written) meanwhile', async () => {
      const urn = dataset('relies');
      await arrange(s.store, [{ urn, aspects: { status: { removed: false } } }]);
      const state = await loadWriteState(optimistic, loadOf([urn], { properties: [P('a')] }));
      await s.query('UPDATE entity SET version = version + 1 WHERE urn = $1', [P('a')]);
      expect(await applyWrites(optimistic, [decision(urn, { writes: [row('status', { removed: true }, '2')], reliesOn: [P('a')] })], state)).toBeNull();
    });

    test('refuses when a property it relied on was re-created under a new generation meanwhile', async () => {
      const urn = dataset('relies');
      const state = await loadWriteState(optimistic, loadOf([urn], { properties: [P('b')] }));
      await s.query("UPDATE structured_property SET generation = nextval('structured_property_generation_seq') WHERE urn = $1", [P('b')]);
      expect(await applyWrites(optimistic, [decision(urn, { writes: [row('status', { removed: true }, '2')], reliesOn: [P('b')] })], state)).toBeNull();
    });
  });

  describe('registry changes and jobs, in the same statement', () => {
    const defineDecision = (name: string, generation: bigint | 'new', jobs: EntityWriteDecision['jobs'] = []) =>
      decision(P(name), {
        writes: [row('propertyDefinition', definition(`apply.${name}`), '1')],
        registry: [{ urn: P(name), define: { qualifiedName: `apply.${name}`, searchField: `apply_${name}`, valueType: 'string', version: null, generation, lineage: generation === 'new' ? 'new' : 'keep', migration: null }, removed: null }],
        jobs,
      });

    test('a definition draws a new generation, queues its job and bumps the registry epoch', async () => {
      const state = await loadWriteState(optimistic, loadOf([P('fresh')], { aspects: ['propertyDefinition'] }));
      const epochBefore = await epoch();
      const job = { kind: CLEANUP_PROPERTY_VALUES, payload: { propertyUrn: P('fresh') } };
      expect(await applyWrites(optimistic, [{ ...defineDecision('fresh', 'new', [job]), creates: { keyAspect: 'structuredPropertyKey' } }], state)).not.toBeNull();
      const [registered] = await s.query<{ generation: string; removed: boolean; search_field: string }>('SELECT generation::text AS generation, removed, search_field FROM structured_property WHERE urn = $1', [P('fresh')]);
      const last = (await s.query<{ last: string }>('SELECT last_value::text AS last FROM structured_property_generation_seq'))[0]!.last;
      expect(registered).toEqual({ generation: last, removed: false, search_field: 'apply_fresh' });
      expect(await s.query("SELECT payload FROM job WHERE kind = $1 AND payload->>'propertyUrn' = $2", [CLEANUP_PROPERTY_VALUES, P('fresh')])).toEqual([{ payload: job.payload }]);
      expect(BigInt(await epoch())).toBeGreaterThan(BigInt(epochBefore));
    });

    test('a definition and a soft delete of the same property apply together', async () => {
      const state = await loadWriteState(optimistic, loadOf([P('a')], { aspects: ['propertyDefinition', 'status'], properties: [P('a')] }));
      const generation = state.properties.get(P('a'))!.generation;
      const d = defineDecision('a', generation);
      await applyWrites(optimistic, [{ ...d, writes: [...d.writes, row('status', { removed: true }, '1')], registry: [{ ...d.registry[0]!, removed: true }] }], state);
      expect(await s.query('SELECT generation::text AS generation, removed FROM structured_property WHERE urn = $1', [P('a')])).toEqual([{ generation: String(generation), removed: true }]);
      const restore = await loadWriteState(optimistic, loadOf([P('a')], { aspects: ['status'] }));
      await applyWrites(optimistic, [decision(P('a'), { writes: [row('status', { removed: false }, '2')], registry: [{ urn: P('a'), define: null, removed: false }] })], restore);
      expect(await s.query('SELECT removed FROM structured_property WHERE urn = $1', [P('a')])).toEqual([{ removed: false }]);
    });

    test('a search field name taken meanwhile refuses the definition', async () => {
      const state = await loadWriteState(optimistic, loadOf([P('taken')], { aspects: ['propertyDefinition'] }));
      await arrange(s.store, [{ urn: 'urn:li:structuredProperty:apply_taken', aspects: { propertyDefinition: definition('apply_taken') } }]);
      expect(await applyWrites(optimistic, [{ ...defineDecision('taken', 'new'), creates: { keyAspect: 'structuredPropertyKey' } }], state)).toBeNull();
      expect(await s.query('SELECT urn FROM structured_property WHERE urn = $1', [P('taken')])).toEqual([]);
    });

    test('a search field name taken by a definition committing while the statement runs refuses it too, rather than failing', async () => {
      const state = await loadWriteState(optimistic, loadOf([P('racing')], { aspects: ['propertyDefinition'] }));
      const other = await s.pool.connect();
      try {
        await other.query('BEGIN');
        await other.query("INSERT INTO structured_property (urn, qualified_name, search_field, value_type, generation) VALUES ('urn:li:structuredProperty:apply_racing', 'apply_racing', 'apply_racing', 'string', 1)");
        const applying = applyWrites(optimistic, [{ ...defineDecision('racing', 'new'), creates: { keyAspect: 'structuredPropertyKey' } }], state);
        await waitFor('the statement to wait for the other insert', 30_000, async () => {
          const waiting = await s.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
          return waiting.length > 0 ? true : undefined;
        }, 20);
        await other.query('COMMIT');
        expect(await applying).toBeNull();
      } finally {
        other.release();
      }
      expect(await versionOf(P('racing'))).toBeUndefined();
    });
  });

  describe('the locked path', () => {
    test('bumps and writes inside the transaction', async () => {
      const urn = P('b');
      await inTransaction(s.db, async (tx) => {
        const target: WriteTarget = { kind: 'locked', tx };
        const state = await loadWriteState(target, loadOf([urn], { aspects: ['status'] }));
        await applyWrites(target, [decision(urn, { writes: [row('status', { removed: true }, '1')], registry: [{ urn, define: null, removed: true }] })], state);
      });
      expect(await s.query('SELECT removed FROM structured_property WHERE urn = $1', [urn])).toEqual([{ removed: true }]);
    });

    test('a property relied on that changed before the statement aborts the transaction with WriteConflict, to be run again', async () => {
      const urn = dataset('locked.relies');
      await arrange(s.store, [{ urn, aspects: { status: { removed: false } } }]);
      const before = await versionOf(urn);
      await expect(inTransaction(s.db, async (tx) => {
        const target: WriteTarget = { kind: 'locked', tx };
        const state = await loadWriteState(target, loadOf([urn], { properties: [P('a')] }));
        await s.query('UPDATE entity SET version = version + 1 WHERE urn = $1', [P('a')]);
        await applyWrites(target, [decision(urn, { writes: [row('status', { removed: true }, '2')], reliesOn: [P('a')] })], state);
      })).rejects.toBeInstanceOf(WriteConflict);
      expect(await versionOf(urn)).toBe(before);
    });
  });
});
