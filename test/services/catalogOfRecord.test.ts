/**
 * The catalog of record (issue #39, docs/contract.md "Definitions evolve", "Stale
 * writes", "Whole batches", "Lifecycle in history", "Which values a read may return"),
 * at the services on a real PostgreSQL: a definition change breaks only what stored
 * values make it break, and a migration keeps what it would break; a write that read an
 * older version is refused, told what it missed; a plan is written whole or not at all;
 * what happens to a property as a whole is history; and no read returns another
 * lineage's values.
 */
import { BatchRefusedError, ConflictError, ForbiddenError, IncompatibleChangeError, StaleWriteError, ValidationError } from '../../src/domain/errors.js';
import { ENTITY } from '../../src/domain/registry/entityTypes.js';
import { parseUrn } from '../../src/domain/urn.js';
import type { MigrationRules } from '../../src/domain/valueMigration.js';
import type { Caller } from '../../src/services/caller.js';
import type { ReplacePropertyInput } from '../../src/services/propertyService.js';
import { sql } from '../../src/store/sql.js';
import { searchAvailableForTests } from '../support/server.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';
import { jobsSettled, rejection } from '../support/serviceCatalog.js';
import { waitFor } from '../support/waitFor.js';
import { writesOf } from '../support/writes.js';
import { nonEmpty } from '../support/nonEmpty.js';

const steward: Caller = { actor: 'urn:li:corpuser:steward@example.com', scope: 'write', via: 'console' };
const admin: Caller = { actor: 'urn:li:corpuser:admin@example.com', scope: 'admin', via: 'rest-v3' };
const ana: Caller = { actor: 'urn:li:corpuser:ana@example.com', scope: 'write', via: 'console' };
const ben: Caller = { actor: 'urn:li:corpuser:ben@example.com', scope: 'write', via: 'cli' };

const property = (name: string) => `urn:li:structuredProperty:cor.${name}`;
const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,cor.${name},PROD)`;
const num = (n: number) => ({ double: n });
const str = (s: string) => ({ string: s });

let rt: TestRuntime;

beforeAll(async () => {
  // The job worker starts when a test says so: reads are checked while a migration's values are still to be rewritten.
  rt = await startTestRuntime({ env: { BACKGROUND_WORKERS: 'false' } });
}, 120_000);

afterAll(async () => {
  await rt?.stop();
});

/** A number property (allowed values when given), and `count` datasets holding `values` each. */
async function numberProperty(name: string, options: { allowed?: number[]; cardinality?: 'SINGLE' | 'MULTIPLE'; holders?: Array<readonly number[]> } = {}): Promise<{ urn: string; datasets: string[] }> {
  const urn = property(name);
  await rt.services.properties.create(admin, {
    id: `cor.${name}`,
    valueType: 'urn:li:dataType:svc.number',
    entityTypes: ['urn:li:entityType:svc.dataset'],
    cardinality: options.cardinality ?? 'SINGLE',
    ...(options.allowed ? { allowedValues: options.allowed.map((n) => ({ numberValue: n })) } : {}),
  });
  const datasets = (options.holders ?? []).map((_, i) => dataset(`${name}.${i}`));
  if (datasets.length > 0) {
    await writesOf(rt.services).batchUpsert(admin, ENTITY.dataset, datasets.map((urn) => ({ urn, aspects: new Map([['status', { value: { removed: false } }]]) })));
    await rt.services.writes.submit(admin, {
      entities: datasets.map((d, i) => ({ urn: parseUrn(d), changes: [{ op: 'set', aspect: 'structuredProperties', value: { properties: [{ propertyUrn: urn, values: options.holders![i]!.map(num) }] } }] })),
    });
  }
  return { urn, datasets };
}

function replacement(urn: string, extra: Partial<ReplacePropertyInput> = {}): ReplacePropertyInput {
  return { urn, valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'SINGLE', ...extra };
}

const allowed = (...ns: number[]) => ns.map((n) => ({ numberValue: n }));
const valuesOf = async (d: string, p: string) => (await rt.services.values.get(admin, d))?.properties.find((e) => e.propertyUrn === p)?.values ?? null;
const migrating = async (p: string) => (await rt.services.properties.get(admin, p))?.migrating;

describe('definitions evolve; values survive (issue #39, finding 1)', () => {
  test('retiring an allowed value no entity holds is accepted without a version, and every stored value stays', async () => {
    const { urn, datasets } = await numberProperty('retire', { allowed: [1, 2, 3], holders: Array.from({ length: 30 }, () => [1]) });
    await rt.services.properties.replace(steward, replacement(urn, { allowedValues: allowed(1, 2) }));
    const state = await rt.services.properties.get(admin, urn);
    expect(state?.definition.allowedValues?.map((a) => a.value)).toEqual([num(1), num(2)]);
    expect(state?.definition.version).toBeUndefined();
    for (const d of nonEmpty(datasets)) expect(await valuesOf(d, urn)).toEqual([num(1)]);
  });

  test('retiring a value entities hold is refused naming its holders; a migration remaps them instead: no read ever sees the retired value, and each change is the steward\'s in history', async () => {
    const { urn, datasets } = await numberProperty('remap', { allowed: [1, 2, 3], holders: [[2], [2], [2], [1], [3]] });
    const err = await rejection(rt.services.properties.replace(steward, replacement(urn, { allowedValues: allowed(1, 3) })), IncompatibleChangeError);
    expect(err.message).toMatch(/allowed value 2 is removed \(3 entities hold values it breaks\)/);

    const migration: MigrationRules = { remap: [{ from: num(2), to: num(3) }], convert: false, dropInvalid: false };
    const preview = await rt.services.properties.previewReplace(steward, replacement(urn, { allowedValues: allowed(1, 3), migration }));
    expect(preview.breaking).toEqual([{ change: 'allowed value 2 is removed', kind: 'allowedValueRemoved', holders: 3 }]);
    expect(preview.migration).toMatchObject({ holders: 5, changed: 3, rules: [{ rule: 'remap 2 → 3', entities: 3, values: 3 }], refused: { values: 0 } });
    expect(preview.impact).toEqual({ entities: 0, values: 0, byEntityType: {} });

    await rt.services.properties.replace(steward, replacement(urn, { allowedValues: allowed(1, 3), migration }));
    // The job has not run yet: readers see the values through the migration.
    expect(await migrating(urn)).toBe(true);
    expect(await Promise.all(datasets.map((d) => valuesOf(d, urn)))).toEqual([[num(3)], [num(3)], [num(3)], [num(1)], [num(3)]]);
    // While it runs, the definition stays as it is.
    await rejection(rt.services.properties.replace(steward, replacement(urn, { allowedValues: allowed(1, 3, 4) })), ConflictError);
    await rejection(rt.services.properties.softDelete(steward, urn), ConflictError);

    rt.worker.start();
    await waitFor('the migration to finish', 60_000, async () => ((await migrating(urn)) === false ? true : undefined));
    expect(await Promise.all(datasets.map((d) => valuesOf(d, urn)))).toEqual([[num(3)], [num(3)], [num(3)], [num(1)], [num(3)]]);
    const history = await rt.services.history.valueHistory(admin, { property: urn, count: 100 });
    const migrated = history.entries.filter((e) => e.via === 'migration');
    expect(migrated.map((e) => ({ urn: e.urn, actor: e.actor, changes: e.changes.map((c) => [c.before, c.after]) })).sort((a, b) => a.urn.localeCompare(b.urn))).toEqual(
      datasets.slice(0, 3).map((d) => ({ urn: d, actor: steward.actor, changes: [[[num(2)], [num(3)]]] })),
    );
    expect(history.events.map((e) => [e.event, e.actor])).toEqual([
      ['migrationFinished', steward.actor],
      ['migrationStarted', steward.actor],
      ['created', admin.actor],
    ]);
    // A new write of the old value is refused by the new definition.
    await rejection(rt.services.values.upsert(steward, datasets[0]!, [{ structuredPropertyUrn: urn, values: [{ numberValue: 2 }] }]), ValidationError);
  });

  test('convert: a number property becomes a string one, every value kept as people write it', async () => {
    const { urn, datasets } = await numberProperty('convert', { holders: [[30], [1.5]] });
    await rt.services.properties.replace(steward, { ...replacement(urn), valueType: 'urn:li:dataType:svc.string', migration: { remap: [], convert: true, dropInvalid: false } });
    expect(await valuesOf(datasets[0]!, urn)).toEqual([str('30')]);
    expect(await valuesOf(datasets[1]!, urn)).toEqual([str('1.5')]);
    await waitFor('the migration to finish', 60_000, async () => ((await migrating(urn)) === false ? true : undefined));
    expect(await valuesOf(datasets[1]!, urn)).toEqual([str('1.5')]);
  });

  test('convert to numbers refuses strings that do not read as one, naming them; dropInvalid drops exactly those, and only a caller who may drop values may ask', async () => {
    const urn = property('strings');
    await rt.services.properties.create(admin, { id: 'cor.strings', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] });
    const [a, b] = [dataset('strings.a'), dataset('strings.b')];
    await writesOf(rt.services).batchUpsert(admin, ENTITY.dataset, [a, b].map((d) => ({ urn: d, aspects: new Map([['status', { value: { removed: false } }]]) })));
    await rt.services.values.upsert(admin, a, [{ structuredPropertyUrn: urn, values: [{ stringValue: '365' }] }]);
    await rt.services.values.upsert(admin, b, [{ structuredPropertyUrn: urn, values: [{ stringValue: 'forever' }] }]);
    const toNumbers = (dropInvalid: boolean): ReplacePropertyInput => ({ ...replacement(urn), migration: { remap: [], convert: true, dropInvalid } });
    const refused = await rejection(rt.services.properties.replace(steward, toNumbers(false)), ValidationError);
    expect(refused.message).toMatch(new RegExp(`leaves 1 stored value on 1 entity invalid .*${b.replace(/[()]/g, '\\$&')}: "forever" does not read as a number`));
    expect(refused.field).toBe('migration');
    await rejection(rt.services.properties.replace(steward, toNumbers(true)), ForbiddenError);
    await rt.services.properties.replace(admin, toNumbers(true));
    expect(await valuesOf(a, urn)).toEqual([num(365)]);
    expect(await valuesOf(b, urn)).toBeNull();
  });

  test('MULTIPLE to SINGLE: refused while an entity holds two values, accepted at once when none does', async () => {
    const two = await numberProperty('multi', { cardinality: 'MULTIPLE', holders: [[1, 2], [3]] });
    await rejection(rt.services.properties.replace(steward, replacement(two.urn)), IncompatibleChangeError);
    const one = await numberProperty('single', { cardinality: 'MULTIPLE', holders: [[1], [3]] });
    await rt.services.properties.replace(steward, replacement(one.urn));
    expect((await rt.services.properties.get(admin, one.urn))?.definition.cardinality).toBe('SINGLE');
    expect(await valuesOf(one.datasets[0]!, one.urn)).toEqual([num(1)]);
  });

  test('the seed\'s versioned breaking change is as it was: every value dropped, by an admin', async () => {
    const { urn, datasets } = await numberProperty('versioned', { allowed: [1, 2], holders: [[2]] });
    await rejection(rt.services.properties.replace(steward, replacement(urn, { allowedValues: allowed(1), version: '20270101000000' })), ForbiddenError);
    await rt.services.properties.replace(admin, replacement(urn, { allowedValues: allowed(1), version: '20270101000000' }));
    expect(await valuesOf(datasets[0]!, urn)).toBeNull();
  });
});

describe('no lost update (issue #39, finding 2)', () => {
  test('two people who read the same version: the second save is refused as stale, told who changed what since, and the first is not lost', async () => {
    const urn = property('tier');
    await rt.services.properties.create(admin, { id: 'cor.tier', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] });
    const d = dataset('shared');
    await writesOf(rt.services).batchUpsert(admin, ENTITY.dataset, [{ urn: d, aspects: new Map([['status', { value: { removed: false } }]]) }]);
    const read = await rt.services.values.upsert(admin, d, [{ structuredPropertyUrn: urn, values: [{ stringValue: 'gold' }] }]);
    const version = read.result.aspectVersion!;
    const saved = await rt.services.values.upsert(ana, d, [{ structuredPropertyUrn: urn, values: [{ stringValue: 'silver' }] }], { expectedVersion: version });
    const stale = await rejection(rt.services.values.upsert(ben, d, [{ structuredPropertyUrn: urn, values: [{ stringValue: 'bronze' }] }], { expectedVersion: version }), StaleWriteError);
    expect(stale.reason).toBe('STALE');
    expect(stale.details).toMatchObject({
      expectedVersion: version,
      currentVersion: saved.result.aspectVersion,
      writesSince: [{ actor: ana.actor, via: 'console' }],
      changes: [{ propertyUrn: urn, before: ['gold'], after: ['silver'] }],
    });
    expect(await valuesOf(d, urn)).toEqual([str('silver')]);
    // Keeping theirs is a save with the version they were told of.
    await rt.services.values.upsert(ben, d, [{ structuredPropertyUrn: urn, values: [{ stringValue: 'bronze' }] }], { expectedVersion: saved.result.aspectVersion! });
    expect(await valuesOf(d, urn)).toEqual([str('bronze')]);
  });
});

describe('batches are whole (issue #39, finding 4)', () => {
  test('a plan with a valid entity and two refused ones writes nothing, and names both refusals at once', async () => {
    const urn = property('batch');
    await rt.services.properties.create(admin, { id: 'cor.batch', valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'] });
    const [ok, bad, missing] = [dataset('batch.ok'), dataset('batch.bad'), dataset('batch.missing')];
    await writesOf(rt.services).batchUpsert(admin, ENTITY.dataset, [ok, bad].map((d) => ({ urn: d, aspects: new Map([['status', { value: { removed: false } }]]) })));
    const set = (d: string, value: unknown) => ({ urn: parseUrn(d), changes: [{ op: 'set' as const, aspect: 'structuredProperties', value: { properties: [{ propertyUrn: urn, values: [value] }] } }], label: { at: `[${d.split('.').at(-1)!.split(',')[0]}]` } });
    const err = await rejection(rt.services.writes.submit(steward, { entities: [set(ok, num(1)), set(bad, str('one')), set(missing, num(2))] }), BatchRefusedError);
    expect(err.items.map((i) => [i.at, i.error.code])).toEqual([
      ['[bad]', 'VALIDATION_FAILED'],
      ['[missing]', 'NOT_FOUND'],
    ]);
    expect(await valuesOf(ok, urn)).toBeNull();
  });
});

describe('lifecycle in history (issue #39, finding 5)', () => {
  test('created, changed, soft deleted, restored and hard deleted: each a history event with actor and time, kept after the delete', async () => {
    const { urn } = await numberProperty('life');
    await rt.services.properties.update(steward, { urn, description: 'days kept' });
    await rt.services.properties.softDelete(ana, urn);
    await rt.services.properties.restore(ben, urn);
    const before = Date.now();
    await rt.services.properties.delete(admin, urn);
    const events = (await rt.services.history.valueHistory(admin, { urn })).events;
    expect(events.map((e) => [e.event, e.actor])).toEqual([
      ['hardDeleted', admin.actor],
      ['restored', ben.actor],
      ['softDeleted', ana.actor],
      ['changed', steward.actor],
      ['created', admin.actor],
    ]);
    expect(events[0]!.time).toBeGreaterThanOrEqual(before - 1000);
  });

  test('a metadata test\'s lifecycle too', async () => {
    const test = (await rt.services.tests.createTest(admin, { id: 'cor-life', name: 'n', category: 'c', definition: { json: JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'datasetProperties.name', operator: 'exists' }] }) } })).result;
    await rt.services.tests.deleteTest(admin, test);
    expect((await rt.services.history.valueHistory(admin, { urn: test })).events.map((e) => e.event)).toEqual(['hardDeleted', 'created']);
  });
});

describe('which values a read may return (issue #46, items 1 and 4)', () => {
  test('a property hard-deleted and defined again brings none of its older values back, in history or in older versions', async () => {
    const urn = property('again');
    const define = () => rt.services.properties.create(admin, { id: 'cor.again', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] });
    await define();
    const d = dataset('again');
    await writesOf(rt.services).batchUpsert(admin, ENTITY.dataset, [{ urn: d, aspects: new Map([['status', { value: { removed: false } }]]) }]);
    await rt.services.values.upsert(admin, d, [{ structuredPropertyUrn: urn, values: [{ stringValue: 'SECRET-B3' }] }]);
    await rt.services.values.remove(admin, d, [urn]);
    await rt.services.properties.delete(admin, urn);
    // Defined again before the cleanup could reach the older versions.
    await define();
    const history = await rt.services.history.valueHistory(admin, { urn: d, count: 100 });
    expect(JSON.stringify(history.entries)).not.toContain('SECRET-B3');
    const first = await rt.services.history.aspectVersion(admin, d, 'structuredProperties', 1);
    expect(JSON.stringify(first.value)).not.toContain('SECRET-B3');
    await jobsSettled(rt);
    const [row] = await rt.database.db.query<{ n: bigint }>(sql`SELECT count(*) AS n FROM aspect WHERE metadata::text LIKE '%SECRET-B3%'`);
    expect(Number(row!.n)).toBe(0);
  });

  test('values a new version dropped stay hidden in history, those removed before the change included', async () => {
    const urn = property('dropped');
    await rt.services.properties.create(admin, { id: 'cor.dropped', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] });
    const d = dataset('dropped');
    await writesOf(rt.services).batchUpsert(admin, ENTITY.dataset, [{ urn: d, aspects: new Map([['status', { value: { removed: false } }]]) }]);
    await rt.services.values.upsert(admin, d, [{ structuredPropertyUrn: urn, values: [{ stringValue: 'OLD-VALUE' }] }]);
    await rt.services.values.remove(admin, d, [urn]);
    await rt.services.properties.replace(admin, { urn, valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'], version: '20270101000000' });
    await rt.services.values.upsert(admin, d, [{ structuredPropertyUrn: urn, values: [{ numberValue: 7 }] }]);
    const history = await rt.services.history.valueHistory(admin, { urn: d, count: 100 });
    expect(JSON.stringify(history.entries)).not.toContain('OLD-VALUE');
    expect(history.entries.flatMap((e) => e.changes.map((c) => c.after))).toEqual([[num(7)]]);
  });
});

(searchAvailableForTests() ? describe : describe.skip)('a migration in search (issue #39: "search documents show the values as the migration makes them")', () => {
  let srt: TestRuntime;
  let vacuumsBefore = 0;
  /** Vacuums of the change log not by autovacuum. */
  const changeLogVacuums = async () =>
    nonEmpty(await srt.database.db.query<{ n: number }>({ text: `SELECT vacuum_count::int AS n FROM pg_stat_user_tables WHERE relname = 'change_log'`, values: [] }))[0]!.n;

  beforeAll(async () => {
    // The indexer runs; the job worker never does here, so what search shows is not the job's work.
    srt = await startTestRuntime({ search: true, env: { BACKGROUND_WORKERS: 'false' }, tuning: { changeLogVacuumAfter: 1_000 } });
    vacuumsBefore = await changeLogVacuums();
    srt.indexer!.start();
  }, 120_000);

  afterAll(async () => {
    await srt?.stop();
  });

  const holders = async (urn: string, value: string) =>
    (await srt.services.search.scroll(admin, { types: ['dataset'], query: '*', count: 100, orFilters: [{ and: [{ field: `structuredProperties.${urn.slice('urn:li:structuredProperty:'.length)}`, values: [value] }] }] })).entities.length;

  /**
   * The job just queued, run with the indexer stopped until it has written its first
   * chunks (`first` changes to datasets named `like`) and for a second more, in which a
   * job that did not wait for the index would write its next chunks (well inside
   * INDEX_WAIT_MS, 5 s at most); then with the indexer until `done`. Each chunk is one
   * transaction of the job (its changes share their xid): checks that each was indexed
   * before the chunk `ahead` after it was written (1: before the next), and returns
   * their sizes.
   */
  async function pacedChunks(like: string, first: number, done: () => Promise<boolean>, ahead = 1): Promise<number[]> {
    const since = nonEmpty(await srt.database.db.query<{ since: string }>({ text: 'SELECT max(id)::text AS since FROM change_log', values: [] }))[0]!.since;
    const written = async () => nonEmpty(await srt.database.db.query<{ n: number }>({ text: `SELECT count(*)::int AS n FROM change_log WHERE id > $1::bigint AND urn LIKE $2`, values: [since, `%${like}.%`] }))[0]!.n;
    await srt.indexer!.stop();
    srt.worker.start();
    await waitFor('the first chunk', 60_000, async () => ((await written()) >= first ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    srt.indexer!.start();
    await waitFor('the job to finish', 120_000, async () => ((await done()) ? true : undefined));
    const chunks = await srt.database.db.query<{ changes: number; created: number; indexed: number | null }>({
      text: `SELECT count(*)::int AS changes, extract(epoch FROM min(created_on))::float8 AS created, extract(epoch FROM max(indexed_on))::float8 AS indexed
        FROM change_log WHERE id > $1::bigint AND urn LIKE $2 GROUP BY xid ORDER BY min(id)`,
      values: [since, `%${like}.%`],
    });
    for (let k = ahead; k < chunks.length; k++) {
      expect(chunks[k - ahead]!.indexed).not.toBeNull();
      expect(chunks[k - ahead]!.indexed!).toBeLessThanOrEqual(chunks[k]!.created);
    }
    return chunks.map((c) => c.changes);
  }

  test('the holders are indexed again when the definition commits, their values as the migration makes them, before the job rewrites any', async () => {
    const urn = 'urn:li:structuredProperty:cor.indexed';
    await srt.services.properties.create(admin, { id: 'cor.indexed', valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'SINGLE', allowedValues: allowed(1, 2, 3) });
    const datasets = Array.from({ length: 6 }, (_, i) => dataset(`indexed.${i}`));
    await writesOf(srt.services).batchUpsert(admin, ENTITY.dataset, datasets.map((d) => ({ urn: d, aspects: new Map([['status', { value: { removed: false } }]]) })));
    await srt.services.writes.submit(admin, {
      entities: datasets.map((d, i) => ({ urn: parseUrn(d), changes: [{ op: 'set', aspect: 'structuredProperties', value: { properties: [{ propertyUrn: urn, values: [num(i < 4 ? 2 : 1)] }] } }] })),
    });
    await waitFor('the holders of 2 in search', 60_000, async () => ((await holders(urn, '2')) === 4 ? true : undefined));

    const migration: MigrationRules = { remap: [{ from: num(2), to: num(3) }], convert: false, dropInvalid: false };
    await srt.services.properties.replace(steward, replacement(urn, { allowedValues: allowed(1, 3), migration }));
    expect(await srt.services.properties.get(admin, urn)).toMatchObject({ migrating: true });
    await waitFor('the remapped holders in search', 60_000, async () => ((await holders(urn, '3')) === 4 ? true : undefined));
    expect(await holders(urn, '1')).toBe(2);
    // Still migrating: no job has run, and search never answers the retired value.
    expect(await srt.services.properties.get(admin, urn)).toMatchObject({ migrating: true });
    expect(await holders(urn, '2')).toBe(0);
  });

  test('the job writes its next chunk only once the search index has taken the one before: a migration does not run ahead of the indexer', async () => {
    // The migration the test above queued runs first, with the indexer on.
    srt.worker.start();
    await waitFor('the earlier migration to finish', 60_000, async () => ((await srt.services.properties.get(admin, 'urn:li:structuredProperty:cor.indexed'))?.migrating !== true ? true : undefined));
    await srt.worker.stop();
    const urn = 'urn:li:structuredProperty:cor.paced';
    await srt.services.properties.create(admin, { id: 'cor.paced', valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'SINGLE', allowedValues: allowed(1, 2, 3) });
    // 1,200 holders: three chunks of the job (500, 500, 200).
    const datasets = Array.from({ length: 1_200 }, (_, i) => dataset(`paced.${i}`));
    for (const half of [datasets.slice(0, 600), datasets.slice(600)]) {
      await writesOf(srt.services).batchUpsert(admin, ENTITY.dataset, half.map((d) => ({ urn: d, aspects: new Map([['status', { value: { removed: false } }]]) })));
      await srt.services.writes.submit(admin, { entities: half.map((d) => ({ urn: parseUrn(d), changes: [{ op: 'set', aspect: 'structuredProperties', value: { properties: [{ propertyUrn: urn, values: [num(2)] }] } }] })) });
    }
    await srt.services.properties.replace(steward, replacement(urn, { allowedValues: allowed(1, 3), migration: { remap: [{ from: num(2), to: num(3) }], convert: false, dropInvalid: false } }));
    const chunks = await pacedChunks('cor.paced', 500, async () => (await srt.services.properties.get(admin, urn))?.migrating === false);
    expect(chunks).toEqual([500, 500, 200]);
    expect(await holders(urn, '3')).toBe(100);
  });

  test("a hard delete's cleanup keeps pace with the search index one chunk behind: it writes a chunk while the one before is indexed, and the next only once that one is", async () => {
    const urn = 'urn:li:structuredProperty:cor.cleaned';
    await srt.services.properties.create(admin, { id: 'cor.cleaned', valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'] });
    // 2,100 holders: three chunks of the cleanup (1,000, 1,000, 100).
    const datasets = Array.from({ length: 2_100 }, (_, i) => dataset(`cleaned.${i}`));
    for (let i = 0; i < datasets.length; i += 700) {
      const part = datasets.slice(i, i + 700);
      await writesOf(srt.services).batchUpsert(admin, ENTITY.dataset, part.map((d) => ({ urn: d, aspects: new Map([['status', { value: { removed: false } }]]) })));
      await srt.services.writes.submit(admin, { entities: part.map((d) => ({ urn: parseUrn(d), changes: [{ op: 'set', aspect: 'structuredProperties', value: { properties: [{ propertyUrn: urn, values: [num(1)] }] } }] })) });
    }
    await srt.worker.stop();
    await srt.services.properties.delete(admin, urn);
    // Two chunks written with the indexer stopped (the second while the first waits for it); the third only once the first is indexed.
    const chunks = await pacedChunks('cor.cleaned', 2_000, async () => (await srt.services.jobs.list(admin, { kind: 'cleanup-property-values', propertyUrn: urn, count: 1 }))[0]?.status === 'done', 2);
    expect(chunks).toEqual([1_000, 1_000, 100]);
  });

  test('the indexer vacuums the change log once it has marked enough changes (1,000 here, 20,000 as shipped): counts of pending changes stop walking the marked ones', async () => {
    // The migration above marked over 3,000 changes.
    await waitFor('a vacuum of the change log by the indexer', 60_000, async () => ((await changeLogVacuums()) > vacuumsBefore ? true : undefined));
  });
});
