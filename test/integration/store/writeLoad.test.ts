/**
 * The write path's one loader (store/writeLoad.ts) against a real PostgreSQL: what it
 * reads, what the locked variant creates and locks, and what it leaves alone.
 */
import { inTransaction } from '../../../src/store/transaction.js';
import { loadPropertyRecords, loadWriteState, type EntityToLoad, type LoadRequest } from '../../../src/store/writeLoad.js';
import { postgresAvailableForTests } from '../../support/server.js';
import { arrange, definition, openStoreDatabase, type StoreDatabase } from '../../support/storeDatabase.js';

const D = 'urn:li:dataset:(urn:li:dataPlatform:hive,load.d,PROD)';
const FIELD = `urn:li:schemaField:(${D},id)`;
const NEW = 'urn:li:dataset:(urn:li:dataPlatform:hive,load.new,PROD)';
const ORPHAN = 'urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,load.none,PROD),id)';
const P = (name: string) => `urn:li:structuredProperty:load.${name}`;

const entityToLoad = (urn: string, extra: Partial<EntityToLoad> = {}): EntityToLoad => ({
  urn,
  entityType: urn.startsWith('urn:li:schemaField') ? 'schemaField' : 'dataset',
  create: false,
  values: false,
  parent: null,
  ...extra,
});
const request = (entities: EntityToLoad[], extra: Partial<LoadRequest> = {}): LoadRequest => ({ entities, aspects: [], properties: [], searchFields: [], ...extra });

(postgresAvailableForTests() ? describe : describe.skip)('the write loader', () => {
  let s: StoreDatabase;

  beforeAll(async () => {
    s = await openStoreDatabase('store_load');
    await arrange(s.store, ['held', 'soft', 'named', 'other'].map((n) => ({ urn: P(n), aspects: { propertyDefinition: definition(`load.${n}`) } })));
    await arrange(s.store, [{ urn: D, aspects: { status: { removed: false }, datasetProperties: { description: 'd' } } }]);
    await arrange(s.store, [{ urn: D, aspects: { structuredProperties: { properties: [{ propertyUrn: P('held'), values: [{ string: 'h' }] }, { propertyUrn: P('soft'), values: [{ string: 's' }] }] } } }]);
    await arrange(s.store, [{ urn: P('soft'), aspects: { status: { removed: true } } }]);
  }, 60_000);

  afterAll(async () => {
    await s?.close();
  });

  test('an optimistic load reads the entity version, only the aspects named, value rows with their properties state, and the records of named and held properties', async () => {
    const { version } = (await s.query<{ version: string }>('SELECT version::text AS version FROM entity WHERE urn = $1', [D]))[0]!;
    const state = await loadWriteState({ kind: 'optimistic', ...s.store }, request([entityToLoad(D, { values: true })], { aspects: ['structuredProperties', 'status'], properties: [P('named')] }));
    const d = state.entities.get(D)!;
    expect(d.existence).toBe('existed');
    expect(d.version).toBe(BigInt(version));
    expect([...d.aspects.keys()].sort()).toEqual(['status', 'structuredProperties']);
    expect(d.aspects.get('status')!.metadata).toEqual({ removed: false });
    expect(d.values.map((v) => [v.propertyUrn, v.values, v.generation === v.currentGeneration, v.removed]).sort()).toEqual([
      [P('held'), [{ string: 'h' }], true, false],
      [P('soft'), [{ string: 's' }], true, true],
    ]);
    expect([...state.properties.keys()].sort()).toEqual([P('held'), P('named'), P('soft')]);
    const named = state.properties.get(P('named'))!;
    expect(named.definition).toMatchObject({ qualifiedName: 'load.named' });
    expect(named.entityVersion).toBeGreaterThan(0n);
  });

  test('search field owners come back for the names asked', async () => {
    const state = await loadWriteState({ kind: 'optimistic', ...s.store }, request([], { searchFields: ['load_other', 'load_nobody'] }));
    expect(state.searchFieldOwners).toEqual(new Map([['load_other', P('other')]]));
  });

  test('an absent entity is "created" when the write may create it, else "missing"; the optimistic load creates nothing', async () => {
    const state = await loadWriteState({ kind: 'optimistic', ...s.store }, request([entityToLoad(NEW, { create: true }), entityToLoad(NEW.replace('new', 'new2'))]));
    expect(state.entities.get(NEW)).toMatchObject({ existence: 'created', version: null });
    expect(state.entities.get(NEW.replace('new', 'new2'))!.existence).toBe('missing');
    expect(await s.query('SELECT urn FROM entity WHERE urn = $1', [NEW])).toEqual([]);
  });

  test("a schema field's dataset is looked up with it", async () => {
    const state = await loadWriteState({ kind: 'optimistic', ...s.store }, request([entityToLoad(FIELD, { create: true, parent: D }), entityToLoad(ORPHAN, { create: true, parent: ORPHAN.slice(20, -4) })]));
    expect(state.entities.get(FIELD)!.parent).toEqual({ urn: D, exists: true });
    expect(state.entities.get(ORPHAN)!.parent!.exists).toBe(false);
  });

  test('the locked load creates the entities it may create and holds their row locks until commit', async () => {
    const entity = 'urn:li:dataset:(urn:li:dataPlatform:hive,load.locked,PROD)';
    await inTransaction(s.db, async (tx) => {
      const state = await loadWriteState({ kind: 'locked', tx }, request([entityToLoad(entity, { create: true }), entityToLoad(D)], { aspects: ['status'] }));
      expect(state.entities.get(entity)).toMatchObject({ existence: 'created', version: 0n });
      expect(state.entities.get(D)!.existence).toBe('existed');
      expect(state.entities.get(D)!.aspects.get('status')!.metadata).toEqual({ removed: false });
      await expect(s.query('SELECT urn FROM entity WHERE urn = $1 FOR UPDATE NOWAIT', [D])).rejects.toThrow(/could not obtain lock/);
    });
    expect(await s.query('SELECT urn FROM entity WHERE urn = $1 FOR UPDATE NOWAIT', [D])).toHaveLength(1);
  });

  test("the locked load share-locks a schema field's dataset, and creates no field whose dataset is missing", async () => {
    await inTransaction(s.db, async (tx) => {
      const state = await loadWriteState({ kind: 'locked', tx }, request([entityToLoad(FIELD, { create: true, parent: D }), entityToLoad(ORPHAN, { create: true, parent: ORPHAN.slice(20, -4) })]));
      expect(state.entities.get(FIELD)!.parent).toEqual({ urn: D, exists: true });
      expect(state.entities.get(ORPHAN)).toMatchObject({ existence: 'missing', parent: { exists: false } });
      // Shared: other writers of fields may share it, a delete (an exclusive lock) must wait.
      expect(await s.query('SELECT urn FROM entity WHERE urn = $1 FOR SHARE NOWAIT', [D])).toHaveLength(1);
      await expect(s.query('SELECT urn FROM entity WHERE urn = $1 FOR UPDATE NOWAIT', [D])).rejects.toThrow(/could not obtain lock/);
      throw new Error('roll back');
    }).catch((err: Error) => expect(err.message).toBe('roll back'));
    expect(await s.query('SELECT urn FROM entity WHERE urn = ANY($1)', [[FIELD, ORPHAN]])).toEqual([]);
  });

  test('more property records load with the same query', async () => {
    const records = await loadPropertyRecords({ kind: 'optimistic', ...s.store }, [P('other'), P('never')]);
    expect([...records.keys()]).toEqual([P('other')]);
  });
});
