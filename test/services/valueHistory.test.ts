/**
 * History (issue #27 item 1, docs/contract.md §13), at the services on a real
 * PostgreSQL: every write keeps the previous version with its audit stamp (actor, time,
 * interface); versions read back as DataHub numbers them (0 the latest, 1..n the
 * earlier ones, oldest first); the history of values per entity and per property says
 * who changed which value when, before and after, newest first, in pages; what readers
 * may not see stays hidden; retention keeps what it is told to.
 */
import { NotFoundError, SoftDeletedError, ValidationError } from '../../src/domain/errors.js';
import type { Caller } from '../../src/services/caller.js';
import type { HistoryEntry } from '../../src/services/historyService.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';
import { writesOf } from '../support/writes.js';

const P = 'urn:li:structuredProperty:io.hist.tier';
const Q = 'urn:li:structuredProperty:io.hist.owner';
const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,hist.${name},PROD)`;
const D = dataset('orders');
const E = dataset('customers');

const ana: Caller = { actor: 'urn:li:corpuser:ana@example.com', scope: 'write', via: 'rest-v3' };
const ben: Caller = { actor: 'urn:li:corpuser:ben@example.com', scope: 'write', via: 'cli' };
const cy: Caller = { actor: 'urn:li:corpuser:cy@example.com', scope: 'admin', via: 'graphql' };

const s = (v: string) => ({ string: v });
/** An entry as a person reads it: who, how, and property: before → after. */
const told = (e: HistoryEntry) => ({
  urn: e.urn,
  actor: e.actor,
  via: e.via,
  changes: e.changes.map((c) => `${c.propertyUrn.split('.').pop()}: ${c.before === null ? '?' : c.before.map((v) => JSON.stringify(v)).join(',')} -> ${c.after.map((v) => JSON.stringify(v)).join(',')}`),
});

let rt: TestRuntime;

async function define(caller: Caller, name: string): Promise<void> {
  await rt.services.properties.create(caller, { id: name, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'MULTIPLE' });
}

beforeAll(async () => {
  rt = await startTestRuntime();
  await define(cy, 'io.hist.tier');
  await define(cy, 'io.hist.owner');
  await writesOf(rt.services).batchUpsert(cy, (await import('../../src/domain/registry/entityTypes.js')).ENTITY.dataset, [D, E].map((urn) => ({ urn, aspects: new Map([['status', { value: { removed: false } }]]) })));
  await rt.services.values.upsert(ana, D, [{ structuredPropertyUrn: P, values: [{ stringValue: 'bronze' }] }]);
  await rt.services.values.upsert(ben, D, [
    { structuredPropertyUrn: P, values: [{ stringValue: 'gold' }] },
    { structuredPropertyUrn: Q, values: [{ stringValue: 'team-a' }] },
  ]);
  await rt.services.values.upsert(ana, E, [{ structuredPropertyUrn: P, values: [{ stringValue: 'silver' }] }]);
  await rt.services.values.remove(cy, D, [P]);
}, 120_000);

afterAll(async () => {
  await rt?.stop();
});

describe('aspect versions, as DataHub numbers them', () => {
  test('version 1 is the first write, 2 the next, 0 the latest; each with its actor, time and interface', async () => {
    const first = await rt.services.history.aspectVersion(cy, D, 'structuredProperties', 1);
    expect(first.value).toEqual({ properties: [{ propertyUrn: P, values: [s('bronze')] }] });
    expect(first.created).toMatchObject({ actor: ana.actor, via: 'rest-v3' });
    const second = await rt.services.history.aspectVersion(cy, D, 'structuredProperties', 2);
    expect(second.value).toEqual({ properties: [{ propertyUrn: P, values: [s('gold')] }, { propertyUrn: Q, values: [s('team-a')] }] });
    expect(second.created).toMatchObject({ actor: ben.actor, via: 'cli' });
    expect(second.created.time).toBeGreaterThanOrEqual(first.created.time);
    const latest = await rt.services.history.aspectVersion(cy, D, 'structuredProperties', 0);
    expect(latest.value).toEqual({ properties: [{ propertyUrn: Q, values: [s('team-a')] }] });
    expect(latest.created).toMatchObject({ actor: cy.actor, via: 'graphql' });
    expect(latest.systemMetadata).toMatchObject({ version: '3' });
  });

  test('a version that was never written is 404; a negative one is a validation error', async () => {
    await expect(rt.services.history.aspectVersion(cy, D, 'structuredProperties', 9)).rejects.toThrow(NotFoundError);
    await expect(rt.services.history.aspectVersion(cy, D, 'structuredProperties', -1)).rejects.toThrow(ValidationError);
    await expect(rt.services.history.aspectVersion(cy, D, 'noSuchAspect', 1)).rejects.toThrow(ValidationError);
  });
});

describe('the history of values', () => {
  test("an entity's: who changed which value when, before and after, newest first", async () => {
    const page = await rt.services.history.valueHistory(cy, { urn: D });
    expect(page.entries.map(told)).toEqual([
      { urn: D, actor: cy.actor, via: 'graphql', changes: ['tier: {"string":"gold"} -> '] },
      { urn: D, actor: ben.actor, via: 'cli', changes: ['tier: {"string":"bronze"} -> {"string":"gold"}', 'owner:  -> {"string":"team-a"}'] },
      { urn: D, actor: ana.actor, via: 'rest-v3', changes: ['tier:  -> {"string":"bronze"}'] },
    ]);
    expect(page.entries.map((e) => e.version)).toEqual([0, 2, 1]);
    expect(page.scrollId).toBeNull();
  });

  test("one property's on an entity: only the writes that changed it, only its changes", async () => {
    const page = await rt.services.history.valueHistory(cy, { urn: D, property: 'io.hist.owner' });
    expect(page.entries.map(told)).toEqual([{ urn: D, actor: ben.actor, via: 'cli', changes: ['owner:  -> {"string":"team-a"}'] }]);
  });

  test("a property's across entities, newest first, paged without repeats", async () => {
    const all = await rt.services.history.valueHistory(cy, { property: P });
    expect(all.entries.map((e) => [e.urn, e.actor])).toEqual([
      [D, cy.actor],
      [E, ana.actor],
      [D, ben.actor],
      [D, ana.actor],
    ]);
    const first = await rt.services.history.valueHistory(cy, { property: P, count: 3 });
    expect(first.entries).toHaveLength(3);
    expect(first.scrollId).not.toBeNull();
    const second = await rt.services.history.valueHistory(cy, { property: P, count: 3, scrollId: first.scrollId });
    expect([...first.entries, ...second.entries]).toEqual(all.entries);
    expect(second.scrollId).toBeNull();
    expect((await rt.services.history.valueHistory(cy, { property: P, count: 0 })).entries).toEqual([]);
  });

  test('asks for an entity or a property, a property that exists, and a cursor it gave', async () => {
    await expect(rt.services.history.valueHistory(cy, {})).rejects.toThrow(ValidationError);
    await expect(rt.services.history.valueHistory(cy, { property: 'io.hist.never' })).rejects.toThrow(NotFoundError);
    await expect(rt.services.history.valueHistory(cy, { property: P, scrollId: 'not-a-cursor' })).rejects.toThrow(/scrollId is not a valid cursor/);
  });

  test("a soft-deleted property's values are hidden in history as in every read, and come back with it", async () => {
    await rt.services.properties.softDelete(cy, Q);
    try {
      await expect(rt.services.history.valueHistory(cy, { property: Q })).rejects.toThrow(SoftDeletedError);
      const page = await rt.services.history.valueHistory(cy, { urn: D });
      expect(page.entries.flatMap((e) => e.changes.map((c) => c.propertyUrn))).not.toContain(Q);
      const version = await rt.services.history.aspectVersion(cy, D, 'structuredProperties', 2);
      expect(version.value).toEqual({ properties: [{ propertyUrn: P, values: [s('gold')] }] });
    } finally {
      await rt.services.properties.restore(cy, Q);
    }
    expect((await rt.services.history.valueHistory(cy, { property: Q })).entries).toHaveLength(1);
  });
});

describe('retention', () => {
  let kept: TestRuntime;
  const F = dataset('busy');

  beforeAll(async () => {
    kept = await startTestRuntime({ env: { HISTORY_VERSIONS_KEPT: '2' } });
    await kept.services.properties.create(cy, { id: 'io.hist.tier', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] });
    await writesOf(kept.services).setAspect(cy, F, 'status', { value: { removed: false } }, { createOnly: false });
    for (const tier of ['t1', 't2', 't3', 't4', 't5']) await kept.services.values.upsert(ana, F, [{ structuredPropertyUrn: P, values: [{ stringValue: tier }] }]);
  }, 120_000);

  afterAll(async () => {
    await kept?.stop();
  });

  test('HISTORY_VERSIONS_KEPT keeps the newest earlier versions, their numbers unchanged', async () => {
    await expect(kept.services.history.aspectVersion(cy, F, 'structuredProperties', 1)).rejects.toThrow(NotFoundError);
    await expect(kept.services.history.aspectVersion(cy, F, 'structuredProperties', 2)).rejects.toThrow(NotFoundError);
    expect((await kept.services.history.aspectVersion(cy, F, 'structuredProperties', 3)).value).toEqual({ properties: [{ propertyUrn: P, values: [s('t3')] }] });
    expect((await kept.services.history.aspectVersion(cy, F, 'structuredProperties', 4)).value).toEqual({ properties: [{ propertyUrn: P, values: [s('t4')] }] });
    expect((await kept.services.history.aspectVersion(cy, F, 'structuredProperties', 0)).value).toEqual({ properties: [{ propertyUrn: P, values: [s('t5')] }] });
  });

  test('the oldest kept write says that what came before it is not known', async () => {
    const page = await kept.services.history.valueHistory(cy, { urn: F });
    expect(page.entries.map(told).map((e) => e.changes)).toEqual([['tier: {"string":"t4"} -> {"string":"t5"}'], ['tier: {"string":"t3"} -> {"string":"t4"}'], ['tier: ? -> {"string":"t3"}']]);
  });

  test('by default everything is kept', () => {
    expect(rt.config.historyVersionsKept).toBe(0);
  });
});
