/**
 * Group commit at the write entry point (issue #44), on a real PostgreSQL: concurrent
 * writes share statements (fewer statements than writes), and still each keeps its own
 * answer, its atomicity and, per entity, its order: writes merging into one shared entity
 * all land, serialized as if one at a time; a plan refused in part writes nothing of its
 * own while the writes beside it in the same statement land; a write stuck on a row lock
 * holds up only its own entity.
 */
import { parseUrn } from '../../src/domain/urn.js';
import { ENTITY } from '../../src/domain/registry/entityTypes.js';
import { writesPerStatement } from '../../src/telemetry/metrics.js';
import type { Caller } from '../../src/services/caller.js';
import { lockEntities } from '../support/entityLocks.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';
import { waitFor } from '../support/waitFor.js';
import { writesOf } from '../support/writes.js';

const caller: Caller = { actor: 'urn:li:corpuser:many@example.com', scope: 'write', via: 'rest-v3' };
const P = 'urn:li:structuredProperty:gc.tags';
const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,gc.${name},PROD)`;

let rt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime();
  await rt.services.properties.create(caller, { id: 'gc.tags', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'MULTIPLE' });
  const all = [...Array.from({ length: 60 }, (_, i) => dataset(`own${i}`)), dataset('shared'), ...Array.from({ length: 10 }, (_, i) => dataset(`pair${i}`))];
  await writesOf(rt.services).batchUpsert(caller, ENTITY.dataset, all.map((urn) => ({ urn, aspects: new Map([['status', { value: { removed: false } }]]) })));
}, 120_000);

afterAll(async () => {
  await rt?.stop();
});

const statements = async () => (await writesPerStatement.get()).values.find((v) => v.metricName === 'propgraph_writes_per_statement_count')?.value ?? 0;
const sumOfWrites = async () => (await writesPerStatement.get()).values.find((v) => v.metricName === 'propgraph_writes_per_statement_sum')?.value ?? 0;

test('concurrent writes share statements; each keeps its answer, its atomicity, and per entity its order', async () => {
  const [statementsBefore, writesBefore] = [await statements(), await sumOfWrites()];
  const set = (urn: string, value: string) => ({ urn: parseUrn(urn), changes: [{ op: 'set' as const, aspect: 'structuredProperties', value: { properties: [{ propertyUrn: P, values: [{ string: value }] }] } }] });
  const append = (value: string) => ({
    urn: parseUrn(dataset('shared')),
    changes: [
      {
        op: 'compute' as const,
        aspect: 'structuredProperties',
        compute: (current: unknown) => {
          const entries = (current as { properties?: Array<{ propertyUrn: string; values: Array<{ string: string }> }> } | undefined)?.properties ?? [];
          const mine = entries.find((e) => e.propertyUrn === P);
          return { properties: [{ propertyUrn: P, values: [...(mine?.values ?? []), { string: value }] }] };
        },
      },
    ],
  });
  const own = Array.from({ length: 60 }, (_, i) => rt.services.writes.submit(caller, { entities: [set(dataset(`own${i}`), `v${i}`)] }));
  const shared = Array.from({ length: 20 }, (_, i) => rt.services.writes.submit(caller, { entities: [append(`s${i}`)] }));
  // Each plan: a valid entity and one a rule refuses (a value for an unknown property): all or nothing.
  const refusedPlans = Array.from({ length: 10 }, (_, i) =>
    rt.services.writes.submit(caller, {
      entities: [set(dataset(`pair${i}`), `p${i}`), { urn: parseUrn(dataset(`own${i}`)), changes: [{ op: 'set' as const, aspect: 'structuredProperties', value: { properties: [{ propertyUrn: 'urn:li:structuredProperty:gc.unknown', values: [{ string: 'x' }] }] } }] }],
    }),
  );
  const outcomes = await Promise.allSettled([...own, ...shared, ...refusedPlans]);
  expect(outcomes.slice(0, 80).filter((o) => o.status === 'rejected')).toEqual([]);
  expect(outcomes.slice(80).map((o) => o.status)).toEqual(Array(10).fill('rejected'));

  const valuesOf = async (urn: string) => (await rt.services.values.get(caller, urn))?.properties.find((p) => p.propertyUrn === P)?.values.map((v) => (v as { string: string }).string) ?? [];
  for (let i = 0; i < 60; i++) expect(await valuesOf(dataset(`own${i}`))).toEqual([`v${i}`]);
  // Every append landed: each was decided on the state the one before it left.
  expect((await valuesOf(dataset('shared'))).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `s${i}`).sort());
  const versions = await rt.services.history.valueHistory(caller, { urn: dataset('shared'), count: 100 });
  expect(versions.entries).toHaveLength(20);
  for (let i = 0; i < 10; i++) expect(await valuesOf(dataset(`pair${i}`))).toEqual([]);

  // Fewer statements than the writes they carried.
  const carried = (await sumOfWrites()) - writesBefore;
  const used = (await statements()) - statementsBefore;
  expect(carried).toBeGreaterThanOrEqual(90);
  expect(used).toBeLessThan(carried);
}, 120_000);

test('a write stuck on a row lock holds up only its entity: writes of other entities land meanwhile, on at most two connections', async () => {
  const set = (name: string, value: string) => rt.services.writes.submit(caller, { entities: [{ urn: parseUrn(dataset(name)), changes: [{ op: 'set', aspect: 'structuredProperties', value: { properties: [{ propertyUrn: P, values: [{ string: value }] }] } }] }] });
  await lockEntities(rt.databaseUrl, [dataset('shared')], async (lock) => {
    const stuck = set('shared', 'after the lock');
    await waitFor('the write to wait on the lock', 30_000, async () => ((await lock.blocked()).length === 1 ? true : undefined));
    // Others go on in the other slot while it waits.
    await Promise.all(Array.from({ length: 20 }, (_, i) => set(`own${i}`, `meanwhile ${i}`)));
    expect((await lock.blocked()).length).toBe(1);
    await lock.release();
    await stuck;
  });
  const valuesOf = async (urn: string) => (await rt.services.values.get(caller, urn))?.properties.find((p) => p.propertyUrn === P)?.values ?? [];
  expect(await valuesOf(dataset('own19'))).toEqual([{ string: 'meanwhile 19' }]);
  expect(await valuesOf(dataset('shared'))).toEqual([{ string: 'after the lock' }]);
}, 120_000);
