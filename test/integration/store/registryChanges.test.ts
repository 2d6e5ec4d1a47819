/**
 * The write path counts the registry changes it commits (services/localRegistryChanges.ts),
 * which is how a search in this process sees a definition written here at once: a
 * count returned to the caller after the commit, not a hook run by the transaction.
 */
import { ValidationError } from '../../../src/domain/errors.js';
import { parseUrn } from '../../../src/domain/urn.js';
import { postgresAvailableForTests } from '../../support/server.js';
import { arrange, definition, openStoreDatabase, write, type StoreDatabase } from '../../support/storeDatabase.js';

const P = (name: string) => parseUrn(`urn:li:structuredProperty:count.${name}`);
const D = parseUrn('urn:li:dataset:(urn:li:dataPlatform:hive,count.d,PROD)');
const ACTOR = 'urn:li:corpuser:counter';

(postgresAvailableForTests() ? describe : describe.skip)('registry changes counted by the write path', () => {
  let s: StoreDatabase;
  const counted = () => s.store.registryChanges.count;

  beforeAll(async () => {
    s = await openStoreDatabase('store_registry_count');
    await arrange(s.store, [{ urn: D.value, aspects: { status: { removed: false } } }]);
  }, 60_000);

  afterAll(async () => {
    await s?.close();
  });

  test('a definition written is counted once, after it commits', async () => {
    const before = counted();
    await write(s.writes, P('new'), [{ aspect: 'propertyDefinition', value: definition('count.new') }], ACTOR);
    expect(counted()).toBe(before + 1);
  });

  test('writes that leave the registry alone are not counted', async () => {
    const before = counted();
    await write(s.writes, D, [{ aspect: 'structuredProperties', value: { properties: [{ propertyUrn: P('new').value, values: [{ string: 'x' }] }] } }], ACTOR);
    await write(s.writes, D, [{ aspect: 'status', value: { removed: false } }], ACTOR);
    expect(counted()).toBe(before);
  });

  test('a refused definition is not counted', async () => {
    const before = counted();
    await expect(write(s.writes, P('bad'), [{ aspect: 'propertyDefinition', value: definition('count.bad', { valueType: 'urn:li:dataType:svc.nothing' }) }], ACTOR)).rejects.toBeInstanceOf(ValidationError);
    expect(counted()).toBe(before);
  });

  test('soft delete and hard delete of a property are counted; deleting a dataset is not', async () => {
    await arrange(s.store, [{ urn: P('gone').value, aspects: { propertyDefinition: definition('count.gone') } }]);
    const before = counted();
    await write(s.writes, P('gone'), [{ aspect: 'status', value: { removed: true } }], ACTOR);
    expect(counted()).toBe(before + 1);
    const system = { actor: ACTOR, scope: 'admin' as const };
    await s.writes.submit(system, { entities: [{ urn: P('gone'), changes: [{ op: 'delete', aspect: 'status' }] }] });
    expect(counted()).toBe(before + 2);
    await s.writes.submit(system, { entities: [{ urn: P('gone'), changes: [], deleteEntity: true }] });
    expect(counted()).toBe(before + 3);
    await s.writes.submit(system, { entities: [{ urn: D, changes: [], deleteEntity: true }] });
    expect(counted()).toBe(before + 3);
  });
});
