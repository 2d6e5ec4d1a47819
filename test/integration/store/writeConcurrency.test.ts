/**
 * The whole write path in process (services/aspects/pipeline.ts over the real
 * PostgreSQL): concurrent writers to one entity, definitions included, lose no update
 * whichever way each write went (the guarded statement, or the locked transaction after
 * refusals).
 */
import { ValidationError } from '../../../src/domain/errors.js';
import { parseUrn } from '../../../src/domain/urn.js';
import type { PropertyDefinition } from '../../../src/domain/propertyDefinition.js';
import type { StructuredPropertiesAspect } from '../../../src/domain/structuredProperties.js';
import { postgresAvailableForTests } from '../../support/server.js';
import { arrange, definition, openStoreDatabase, write, type StoreDatabase } from '../../support/storeDatabase.js';

const WRITERS = 64;
const D = parseUrn('urn:li:dataset:(urn:li:dataPlatform:hive,conc.d,PROD)');
const P = (name: string) => `urn:li:structuredProperty:conc.${name}`;

(postgresAvailableForTests() ? describe : describe.skip)('concurrent writers in process', () => {
  let s: StoreDatabase;

  beforeAll(async () => {
    s = await openStoreDatabase('store_conc');
    await arrange(s.store, [{ urn: P('many'), aspects: { propertyDefinition: definition('conc.many') } }]);
    await arrange(s.store, [{ urn: D.value, aspects: { status: { removed: false } } }]);
  }, 60_000);

  afterAll(async () => {
    await s?.close();
  });

  test(`${WRITERS} writers merging values into one entity: every value is there, one version per write`, async () => {
    await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        write(s.writes, D, [{ aspect: 'structuredProperties', compute: (current) => {
          const entries = (current as StructuredPropertiesAspect | undefined)?.properties ?? [];
          const existing = entries.find((e) => e.propertyUrn === P('many'));
          const values = [...(existing?.values ?? []), { string: `w${i}` }];
          return { properties: [...entries.filter((e) => e !== existing), { propertyUrn: P('many'), values }] };
        } }], 'urn:li:corpuser:writer'),
      ),
    );
    const [stored] = await s.query<{ metadata: StructuredPropertiesAspect }>("SELECT metadata FROM aspect WHERE urn = $1 AND aspect = 'structuredProperties' AND version = 0", [D.value]);
    expect(stored!.metadata.properties[0]!.values.map((v) => (v as { string: string }).string).sort()).toEqual(Array.from({ length: WRITERS }, (_, i) => `w${i}`).sort());
    const { n } = (await s.query<{ n: string }>("SELECT count(*) AS n FROM aspect WHERE urn = $1 AND aspect = 'structuredProperties'", [D.value]))[0]!;
    expect(Number(n)).toBe(WRITERS);
    const [row] = await s.query<{ values: unknown[] }>('SELECT "values" FROM property_value WHERE entity_urn = $1', [D.value]);
    expect(row!.values).toHaveLength(WRITERS);
  }, 120_000);

  test(`${WRITERS / 2} writers appending to one definition: every addition is there and the registry keeps its generation`, async () => {
    const urn = parseUrn(P('many'));
    const { generation } = (await s.query<{ generation: string }>('SELECT generation::text AS generation FROM structured_property WHERE urn = $1', [urn.value]))[0]!;
    await Promise.all(
      Array.from({ length: WRITERS / 2 }, (_, i) =>
        write(s.writes, urn, [{ aspect: 'propertyDefinition', compute: (current) => {
          const def = current as PropertyDefinition;
          return { ...def, description: `${def.description ?? ''}[${i}]` };
        } }]),
      ),
    );
    const [stored] = await s.query<{ metadata: PropertyDefinition }>("SELECT metadata FROM aspect WHERE urn = $1 AND aspect = 'propertyDefinition' AND version = 0", [urn.value]);
    expect(stored!.metadata.description!.match(/\[\d+\]/g)!.sort()).toEqual(Array.from({ length: WRITERS / 2 }, (_, i) => `[${i}]`).sort());
    expect(await s.query('SELECT generation::text AS generation FROM structured_property WHERE urn = $1', [urn.value])).toEqual([{ generation }]);
  }, 120_000);

  test('two definitions whose names differ only by "." and "_", written at once: one is created, the other refused with the collision, never an internal error', async () => {
    for (let pair = 0; pair < 8; pair++) {
      const names = [`race.n${pair}`, `race_n${pair}`];
      const outcomes = await Promise.allSettled(
        names.map((name) => write(s.writes, parseUrn(`urn:li:structuredProperty:${name}`), [{ aspect: 'propertyDefinition', value: definition(name) }], 'urn:li:corpuser:writer')),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')!.reason as Error;
      expect(refused).toBeInstanceOf(ValidationError);
      expect(refused.message).toMatch(/would share the search field structuredProperties.race_n\d/);
    }
  }, 120_000);
});
