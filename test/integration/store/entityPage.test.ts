/**
 * The one-statement page read (store/aspects.ts entityPageReader, on the driver itself,
 * through the read_entity_page function) against a real PostgreSQL:
 * it must say what the three separate reads it replaces on the search path say
 * (existence with a schema field's dataset, the named latest aspects, held values with
 * their property's state).
 */
import { entityPageReader, existingEntities, latestAspectsOfMany, type EntityPageReader } from '../../../src/store/aspects.js';
import { valuesOfEntities } from '../../../src/store/propertyValues.js';
import { postgresAvailableForTests } from '../../support/server.js';
import { arrange, definition, openStoreDatabase, type StoreDatabase } from '../../support/storeDatabase.js';

const D = 'urn:li:dataset:(urn:li:dataPlatform:hive,page.d,PROD)';
const BARE = 'urn:li:dataset:(urn:li:dataPlatform:hive,page.bare,PROD)';
const MISSING = 'urn:li:dataset:(urn:li:dataPlatform:hive,page.none,PROD)';
const FIELD = `urn:li:schemaField:(${D},id)`;
const ORPHAN = `urn:li:schemaField:(${MISSING},id)`;
const P = (name: string) => `urn:li:structuredProperty:page.${name}`;

(postgresAvailableForTests() ? describe : describe.skip)('the page read', () => {
  let s: StoreDatabase;
  let entityPage: EntityPageReader;

  beforeAll(async () => {
    s = await openStoreDatabase('store_page');
    entityPage = entityPageReader(s.db);
    await arrange(s.store, ['held', 'soft'].map((n) => ({ urn: P(n), aspects: { propertyDefinition: definition(`page.${n}`) } })));
    await arrange(s.store, [{ urn: BARE, aspects: { status: { removed: false } } }]);
    await arrange(s.store, [{ urn: D, aspects: { status: { removed: false }, datasetProperties: { description: 'd', customProperties: { big: '12345678901234567890' } } } }]);
    await arrange(s.store, [{ urn: D, aspects: { structuredProperties: { properties: [{ propertyUrn: P('held'), values: [{ string: 'h' }] }, { propertyUrn: P('soft'), values: [{ string: 's' }] }] } } }]);
    await arrange(s.store, [{ urn: P('soft'), aspects: { status: { removed: true } } }]);
  }, 60_000);

  afterAll(async () => {
    await s?.close();
  });

  test('says what existence, the latest aspects and the held values say, in one statement', async () => {
    const names = ['datasetProperties', 'structuredProperties', 'globalTags'];
    const asked = [
      { urn: D, values: true },
      { urn: BARE, values: true },
      { urn: MISSING, values: true },
      { urn: FIELD, parent: D, values: false },
      { urn: ORPHAN, parent: MISSING, values: false },
    ];
    const page = await entityPage(asked, names);
    const existing = await existingEntities(s.db, [D, BARE, MISSING]);
    const aspects = await latestAspectsOfMany(s.db, [D, BARE], names);
    const values = await valuesOfEntities(s.db, [D, BARE]);

    expect(Object.fromEntries([...page].map(([urn, row]) => [urn, row.present]))).toEqual({ [D]: true, [BARE]: true, [MISSING]: false, [FIELD]: true, [ORPHAN]: false });
    expect(existing).toEqual(new Set([D, BARE]));
    for (const urn of [D, BARE]) {
      const row = page.get(urn)!;
      const stored = aspects.get(urn) ?? new Map();
      expect([...row.aspects.keys()].sort()).toEqual([...stored.keys()].sort());
      for (const [name, a] of stored) expect(row.aspects.get(name)).toEqual({ metadata: a.metadata, systemMetadata: a.systemMetadata });
      expect([...row.values].sort((a, b) => a.propertyUrn.localeCompare(b.propertyUrn))).toEqual([...(values.get(urn) ?? [])].sort((a, b) => a.propertyUrn.localeCompare(b.propertyUrn)));
    }
    const held = page.get(D)!.values;
    expect(held.map((v) => [v.propertyUrn, v.removed, typeof v.generation, v.generation === v.currentGeneration]).sort()).toEqual([
      [P('held'), false, 'bigint', true],
      [P('soft'), true, 'bigint', true],
    ]);
    expect(page.get(FIELD)!.values).toEqual([]);
    expect(page.get(D)!.aspects.get('datasetProperties')!.metadata).toEqual({ description: 'd', customProperties: { big: '12345678901234567890' } });
  });

  test('values only where asked; an entity asked twice reads once; a page of 1,000 as the indexer asks', async () => {
    const page = await entityPage([{ urn: D, values: false }, { urn: BARE, values: true }, { urn: D, values: false }], ['structuredProperties']);
    expect(page.get(D)!.values).toEqual([]);
    expect([...page.get(D)!.aspects.keys()]).toEqual(['structuredProperties']);
    const many = Array.from({ length: 1000 }, (_, i) => ({ urn: i === 500 ? D : `urn:li:dataset:(urn:li:dataPlatform:hive,page.n${i},PROD)`, values: true }));
    const big = await entityPage(many, ['structuredProperties']);
    expect(big.size).toBe(1000);
    expect([...big.values()].filter((r) => r.present)).toHaveLength(1);
    expect(big.get(D)!.values.map((v) => v.propertyUrn).sort()).toEqual([P('held'), P('soft')]);
  });

  test('an empty page reads nothing', async () => {
    expect(await entityPage([], ['status'])).toEqual(new Map());
  });
});
