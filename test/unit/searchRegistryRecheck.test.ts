/**
 * How often a search reads the registry's change counter (services/searchRegistry.ts):
 * once per SEARCH_REGISTRY_RECHECK_MS, also for searches that name no property (their
 * cache is empty, and used to be confirmed never, so each such search read the counter),
 * and at once again after a change committed by this process.
 */
import type { Db } from '../../src/store/database.js';
import { LocalRegistryChanges } from '../../src/services/localRegistryChanges.js';
import { SearchRegistry } from '../../src/services/searchRegistry.js';

function registry(recheckMs: number) {
  const reads = { count: 0 };
  const localChanges = new LocalRegistryChanges();
  const epoch = async () => {
    reads.count += 1;
    return 7n;
  };
  // Searches naming no property never look a field up: the database is not asked for any.
  const db = {} as Db;
  return { reads, localChanges, registry: new SearchRegistry({ db, epoch, recheckMs, localChanges }) };
}

const noFields = () => Promise.resolve('resolved');
const run = (resolved: string) => Promise.resolve(`${resolved} and run`);

test('searches naming no property read the counter once per recheck time, not once each', async () => {
  const { reads, registry: r } = registry(60_000);
  for (let i = 0; i < 5; i++) expect(await r.withCurrentRegistry(noFields, run)).toBe('resolved and run');
  expect(reads.count).toBe(1);
});

test('a change committed here makes the next search read the counter again', async () => {
  const { reads, localChanges, registry: r } = registry(60_000);
  await r.withCurrentRegistry(noFields, run);
  localChanges.noteCommitted();
  await r.withCurrentRegistry(noFields, run);
  await r.withCurrentRegistry(noFields, run);
  expect(reads.count).toBe(2);
});

test('with no recheck time every search reads the counter', async () => {
  const { reads, registry: r } = registry(0);
  for (let i = 0; i < 3; i++) await r.withCurrentRegistry(noFields, run);
  expect(reads.count).toBe(3);
});
