/**
 * Hard deletes in the store (store/deletes.ts) against a real PostgreSQL: what the
 * delete locks and finds, and everything one delete statement removes, logs and queues.
 */
import { deletionOf } from '../../../src/domain/aspects/index.js';
import { CLEANUP_PROPERTY_VALUES } from '../../../src/domain/jobKinds.js';
import { decideAspectDelete, decideEntityDelete } from '../../../src/domain/writes/entityDelete.js';
import { applyDeletes, lockForDelete } from '../../../src/store/deletes.js';
import { inTransaction } from '../../../src/store/transaction.js';
import { postgresAvailableForTests } from '../../support/server.js';
import { arrange, definition, openStoreDatabase, type StoreDatabase } from '../../support/storeDatabase.js';

const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,del.${name},PROD)`;
const fieldOf = (d: string, path: string) => `urn:li:schemaField:(${d},${path})`;
const P = (name: string) => `urn:li:structuredProperty:del.${name}`;
const value = (name: string, v: string) => ({ propertyUrn: P(name), values: [{ string: v }] });

const AUTHOR = { actor: 'urn:li:corpuser:deleter', via: null };

(postgresAvailableForTests() ? describe : describe.skip)('hard deletes in the store', () => {
  let s: StoreDatabase;
  const count = async (sql: string, params: unknown[]) => Number((await s.query<{ n: string }>(sql, params))[0]!.n);
  const rowsOf = async (urns: string[]) => ({
    entities: await count('SELECT count(*) AS n FROM entity WHERE urn = ANY($1)', [urns]),
    aspects: await count('SELECT count(*) AS n FROM aspect WHERE urn = ANY($1)', [urns]),
    values: await count('SELECT count(*) AS n FROM property_value WHERE entity_urn = ANY($1)', [urns]),
  });
  const deleteEntity = (urn: string, entityType: string) =>
    inTransaction(s.db, async (tx) => applyDeletes(tx, decideEntityDelete(await lockForDelete(tx, { urn, entityType }, { childType: entityType === 'dataset' ? 'schemaField' : undefined }), deletionOf), AUTHOR));
  const deleteAspect = (urn: string, entityType: string, aspect: string) =>
    inTransaction(s.db, async (tx) => {
      const [entity] = await lockForDelete(tx, { urn, entityType }, {});
      return entity ? applyDeletes(tx, decideAspectDelete(entity, aspect, deletionOf), AUTHOR) : [];
    });

  beforeAll(async () => {
    s = await openStoreDatabase('store_delete');
    await arrange(s.store, ['tier', 'gone'].map((n) => ({ urn: P(n), aspects: { propertyDefinition: definition(`del.${n}`) } })));
  }, 60_000);

  afterAll(async () => {
    await s?.close();
  });

  test('a dataset goes with its schema fields, their aspects (every version) and value rows, fields logged first', async () => {
    const d = dataset('whole');
    const fields = [fieldOf(d, 'a'), fieldOf(d, 'b')];
    await arrange(s.store, [{ urn: d, aspects: { status: { removed: false }, structuredProperties: { properties: [value('tier', 'x')] } } }]);
    await arrange(s.store, [{ urn: d, aspects: { structuredProperties: { properties: [value('tier', 'y')] } } }]);
    await arrange(s.store, fields.map((f) => ({ urn: f, aspects: { structuredProperties: { properties: [value('tier', 'f')] } } })));
    const ids = await deleteEntity(d, 'dataset');
    expect(await rowsOf([d, ...fields])).toEqual({ entities: 0, aspects: 0, values: 0 });
    const logged = await s.query<{ id: string; urn: string; aspect: string | null; change_type: string }>(
      "SELECT id::text AS id, urn, aspect, change_type FROM change_log WHERE change_type = 'DELETE' AND urn = ANY($1) ORDER BY id", [[d, ...fields]]);
    expect(logged.map(({ urn, aspect, change_type }) => ({ urn, aspect, change_type }))).toEqual([
      { urn: fields[0], aspect: null, change_type: 'DELETE' },
      { urn: fields[1], aspect: null, change_type: 'DELETE' },
      { urn: d, aspect: null, change_type: 'DELETE' },
    ]);
    expect(ids.map(String)).toEqual(logged.map((l) => l.id));
  });

  test('deleting an entity that does not exist finds nothing, deletes nothing and logs nothing', async () => {
    expect(await deleteEntity(dataset('never'), 'dataset')).toEqual([]);
  });

  test("the delete holds the dataset's and its fields' row locks until commit", async () => {
    const d = dataset('locked');
    await arrange(s.store, [{ urn: d, aspects: { status: { removed: false } } }]);
    await arrange(s.store, [{ urn: fieldOf(d, 'a'), aspects: { status: { removed: false } } }]);
    await inTransaction(s.db, async (tx) => {
      const found = await lockForDelete(tx, { urn: d, entityType: 'dataset' }, { childType: 'schemaField' });
      expect(found).toEqual([{ urn: fieldOf(d, 'a'), entityType: 'schemaField', aspects: ['status'] }, { urn: d, entityType: 'dataset', aspects: ['status'] }]);
      for (const urn of [d, fieldOf(d, 'a')]) await expect(s.query('SELECT urn FROM entity WHERE urn = $1 FOR SHARE NOWAIT', [urn])).rejects.toThrow(/could not obtain lock/);
    });
  });

  test('a property definition deleted: registry row gone and its cleanup job queued, in the same statement', async () => {
    await deleteEntity(P('gone'), 'structuredProperty');
    expect(await count('SELECT count(*) AS n FROM structured_property WHERE urn = $1', [P('gone')])).toBe(0);
    expect(await s.query("SELECT kind, status FROM job WHERE payload->>'propertyUrn' = $1", [P('gone')])).toEqual([{ kind: CLEANUP_PROPERTY_VALUES, status: 'pending' }]);
  });

  test('deleting the structuredProperties aspect removes its versions and the value rows, bumps the entity and logs the aspect', async () => {
    const d = dataset('aspect');
    await arrange(s.store, [{ urn: d, aspects: { status: { removed: false }, structuredProperties: { properties: [value('tier', 'x')] } } }]);
    await arrange(s.store, [{ urn: d, aspects: { structuredProperties: { properties: [value('tier', 'y')] } } }]);
    const before = (await s.query<{ v: string }>('SELECT version::text AS v FROM entity WHERE urn = $1', [d]))[0]!.v;
    const ids = await deleteAspect(d, 'dataset', 'structuredProperties');
    expect(ids).toHaveLength(1);
    expect(await count("SELECT count(*) AS n FROM aspect WHERE urn = $1 AND aspect = 'structuredProperties'", [d])).toBe(0);
    expect(await rowsOf([d])).toEqual({ entities: 1, aspects: 1, values: 0 });
    expect(await s.query('SELECT version::text AS v FROM entity WHERE urn = $1', [d])).toEqual([{ v: String(BigInt(before) + 1n) }]);
    expect(await s.query('SELECT aspect, change_type FROM change_log WHERE id = $1', [String(ids[0])])).toEqual([{ aspect: 'structuredProperties', change_type: 'DELETE' }]);
    expect(await deleteAspect(d, 'dataset', 'structuredProperties')).toEqual([]);
  });

  test("deleting a property's status restores the property", async () => {
    await arrange(s.store, [{ urn: P('tier'), aspects: { status: { removed: true } } }]);
    expect(await s.query('SELECT removed FROM structured_property WHERE urn = $1', [P('tier')])).toEqual([{ removed: true }]);
    await deleteAspect(P('tier'), 'structuredProperty', 'status');
    expect(await s.query('SELECT removed FROM structured_property WHERE urn = $1', [P('tier')])).toEqual([{ removed: false }]);
  });
});
