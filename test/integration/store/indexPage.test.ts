/**
 * The indexer's read (store/indexPage.ts) against a real PostgreSQL: it must say what
 * the entity page and the entities' times say, in its own statement (times as epoch
 * milliseconds, no system metadata), for the entities that exist and only those.
 */
import { entityPageReader } from '../../../src/store/aspects.js';
import { indexPageReader } from '../../../src/store/indexPage.js';
import { sql } from '../../../src/store/sql.js';
import { postgresAvailableForTests } from '../../support/server.js';
import { arrange, definition, openStoreDatabase, type StoreDatabase } from '../../support/storeDatabase.js';

const D = 'urn:li:dataset:(urn:li:dataPlatform:hive,indexpage.d,PROD)';
const BARE = 'urn:li:dataset:(urn:li:dataPlatform:hive,indexpage.bare,PROD)';
const MISSING = 'urn:li:dataset:(urn:li:dataPlatform:hive,indexpage.none,PROD)';
const P = 'urn:li:structuredProperty:indexpage.held';

(postgresAvailableForTests() ? describe : describe.skip)("the indexer's page read", () => {
  let s: StoreDatabase;

  beforeAll(async () => {
    s = await openStoreDatabase('store_index_page');
    await arrange(s.store, [{ urn: P, aspects: { propertyDefinition: definition('indexpage.held') } }]);
    await arrange(s.store, [{ urn: BARE, aspects: { status: { removed: false } } }]);
    await arrange(s.store, [{ urn: D, aspects: { status: { removed: false }, datasetProperties: { description: 'd' } } }]);
    // A later write of another aspect: the entity's last write is this one, not its creation.
    await arrange(s.store, [{ urn: D, aspects: { structuredProperties: { properties: [{ propertyUrn: P, values: [{ string: 'h' }] }] } } }]);
  }, 60_000);

  afterAll(async () => {
    await s?.close();
  });

  test('the entities that exist, with the named aspects, the held values and the times to the millisecond', async () => {
    const names = ['status', 'datasetProperties', 'globalTags'];
    const page = await indexPageReader(s.db)([D, BARE, MISSING], names);
    const entityPage = await entityPageReader(s.db)([D, BARE, MISSING].map((urn) => ({ urn, values: true })), names);
    const times = await s.db.query<{ urn: string; created: Date; modified: Date }>(sql`
      SELECT e.urn, e.created_on AS created, (SELECT max(a.created_on) FROM aspect a WHERE a.urn = e.urn AND a.version = 0) AS modified
      FROM entity e WHERE e.urn = ANY(${[D, BARE]}::text[])`);

    expect([...page.keys()].sort()).toEqual([BARE, D].sort());
    for (const urn of [D, BARE]) {
      const row = page.get(urn)!;
      const expected = entityPage.get(urn)!;
      expect(Object.fromEntries(row.aspects)).toEqual(Object.fromEntries([...expected.aspects].map(([name, a]) => [name, a.metadata])));
      expect(row.values).toEqual(expected.values);
      const t = times.find((r) => r.urn === urn)!;
      expect(row.times).toEqual({ created: t.created.getTime(), modified: t.modified.getTime() });
    }
    expect(page.get(D)!.values.map((v) => v.propertyUrn)).toEqual([P]);
  });

  test('no URN asked, no statement and no row', async () => {
    expect((await indexPageReader(s.db)([], ['status'])).size).toBe(0);
  });
});
