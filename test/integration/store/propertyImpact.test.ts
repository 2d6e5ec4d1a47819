/**
 * What dropping a property's values would drop (store/propertyImpact.ts, issue #29
 * item 5), against a real PostgreSQL: the entities holding visible values of it, how
 * many values, and the entities by type. Visible means written under the property's
 * current generation: values a breaking version change already hid are not counted.
 */
import { propertyImpact } from '../../../src/store/propertyImpact.js';
import { postgresAvailableForTests } from '../../support/server.js';
import { arrange, definition, openStoreDatabase, type StoreDatabase } from '../../support/storeDatabase.js';

const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,impact.${name},PROD)`;
const P = (name: string) => `urn:li:structuredProperty:impact.${name}`;
const value = (name: string, ...vs: string[]) => ({ propertyUrn: P(name), values: vs.map((v) => ({ string: v })) });

(postgresAvailableForTests() ? describe : describe.skip)('propertyImpact', () => {
  let s: StoreDatabase;

  beforeAll(async () => {
    s = await openStoreDatabase('store_impact');
    await arrange(s.store, ['tier', 'other', 'empty'].map((n) => ({ urn: P(n), aspects: { propertyDefinition: definition(`impact.${n}`, { version: '20260101000000' }) } })));
    await arrange(s.store, [
      { urn: dataset('a'), aspects: { status: { removed: false }, structuredProperties: { properties: [value('tier', 'gold'), value('other', 'x')] } } },
      { urn: dataset('b'), aspects: { status: { removed: false }, structuredProperties: { properties: [value('tier', 'gold', 'silver')] } } },
      { urn: dataset('c'), aspects: { status: { removed: false }, structuredProperties: { properties: [value('other', 'y')] } } },
    ]);
    await arrange(s.store, [{ urn: `urn:li:schemaField:(${dataset('a')},id)`, aspects: { structuredProperties: { properties: [value('tier', 'bronze')] } } }]);
  }, 60_000);

  afterAll(async () => {
    await s?.close();
  });

  test('counts the entities holding visible values, the values, and the entities by type', async () => {
    expect(await propertyImpact(s.db, P('tier'))).toEqual({ entities: 3, values: 4, byEntityType: { dataset: 2, schemaField: 1 } });
    expect(await propertyImpact(s.db, P('other'))).toEqual({ entities: 2, values: 2, byEntityType: { dataset: 2 } });
  });

  test('a property without values, or without a definition, has no impact', async () => {
    expect(await propertyImpact(s.db, P('empty'))).toEqual({ entities: 0, values: 0, byEntityType: {} });
    expect(await propertyImpact(s.db, P('never-defined'))).toEqual({ entities: 0, values: 0, byEntityType: {} });
  });

  test('values hidden by a new version are not counted; values written under it are', async () => {
    await arrange(s.store, [{ urn: P('other'), aspects: { propertyDefinition: definition('impact.other', { version: '20260202000000', valueType: 'urn:li:dataType:svc.number' }) } }]);
    expect(await propertyImpact(s.db, P('other'))).toEqual({ entities: 0, values: 0, byEntityType: {} });
    await arrange(s.store, [{ urn: dataset('c'), aspects: { structuredProperties: { properties: [{ propertyUrn: P('other'), values: [{ double: 1 }, { double: 2 }] }] } } }]);
    expect(await propertyImpact(s.db, P('other'))).toEqual({ entities: 1, values: 2, byEntityType: { dataset: 1 } });
  });
});
