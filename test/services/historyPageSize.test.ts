/**
 * Issue #46 item 2: a page of value history is bounded by size, not only by count. An
 * entity whose every version holds large values: a page asked for with count 1000 ends
 * once it has read LIMITS.historyPageCharacters of stored versions, says where to go on,
 * and the pages together hold every entry once, newest first; a version larger than the
 * bound alone still comes, one per page. Before, one page read every version asked for.
 */
import { LIMITS } from '../../src/domain/limits.js';
import type { Caller } from '../../src/services/caller.js';
import type { HistoryEntry } from '../../src/services/historyService.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';
import { ENTITY } from '../../src/domain/registry/entityTypes.js';
import { writesOf } from '../support/writes.js';
import { nonEmpty } from '../support/nonEmpty.js';
import { valuesVersions } from '../../src/store/aspectVersions.js';

const NOTES = 'urn:li:structuredProperty:io.pagesize.notes';
const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,pagesize.${name},PROD)`;
const D = dataset('wide');
const admin: Caller = { actor: 'urn:li:corpuser:admin', scope: 'admin', via: 'rest-v3' };
const VERSIONS = 12;

let rt: TestRuntime;

/** Every page of the history, following the scroll ids. */
async function allPages(query: { urn?: string; property?: string }): Promise<HistoryEntry[][]> {
  const pages: HistoryEntry[][] = [];
  let scrollId: string | null = null;
  do {
    const page = await rt.services.history.valueHistory(admin, { ...query, count: 1000, scrollId });
    pages.push(page.entries);
    scrollId = page.scrollId;
  } while (scrollId && pages.length < 100);
  return pages;
}

beforeAll(async () => {
  rt = await startTestRuntime();
  await rt.services.properties.create(admin, { id: 'io.pagesize.notes', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'MULTIPLE' });
  await writesOf(rt.services).batchUpsert(admin, ENTITY.dataset, [{ urn: D, aspects: new Map([['status', { value: { removed: false } }]]) }]);
  // Each version holds 6 values of 2,000 characters: about 12,000 characters, twice that with the version before.
  for (let v = 0; v < VERSIONS; v++) {
    const values = Array.from({ length: 6 }, (_, i) => ({ stringValue: `${v}-${i}-${'n'.repeat(2_000)}` }));
    await rt.services.values.upsert(admin, D, [{ structuredPropertyUrn: NOTES, values }]);
  }
}, 120_000);

afterAll(async () => {
  await rt?.stop();
});

test.each([
  ['an entity', { urn: D }],
  ['a property', { property: NOTES }],
])("the history of %s, asked 1000 at a time, comes in pages bounded by size that together hold every write once", async (_what, query) => {
  const pages = await allPages(query);
  const entries = pages.flat();
  expect(entries).toHaveLength(VERSIONS);
  expect(new Set(entries.map((e) => e.version)).size).toBe(VERSIONS);
  expect(entries.map((e) => e.time)).toEqual([...entries.map((e) => e.time)].sort((a, b) => b - a));
  expect(pages.length).toBeGreaterThan(1);
  expect(pages.some((page) => page.length > 1)).toBe(true);
  for (const page of nonEmpty(pages)) {
    expect(page.length).toBeGreaterThanOrEqual(1);
    // Each entry is a version's values before and after: about what the page read of the store (one entry alone may be more).
    if (page.length > 1) expect(JSON.stringify(page).length).toBeLessThanOrEqual(LIMITS.historyPageCharacters * 1.2);
  }
});

test('a version larger than the bound alone still comes, one per page', async () => {
  const huge = dataset('huge');
  await writesOf(rt.services).batchUpsert(admin, ENTITY.dataset, [{ urn: huge, aspects: new Map([['status', { value: { removed: false } }]]) }]);
  for (let v = 0; v < 3; v++) {
    const values = Array.from({ length: 20 }, (_, i) => ({ stringValue: `${v}-${i}-${'h'.repeat(9_000)}` }));
    await rt.services.values.upsert(admin, huge, [{ structuredPropertyUrn: NOTES, values }]);
  }
  const pages = await allPages({ urn: huge });
  expect(pages.map((p) => p.length)).toEqual([1, 1, 1]);
});

test("a property held by more entities than the few read whole: its history comes from the newest writes back, every write once, in order", async () => {
  const HELD = 'urn:li:structuredProperty:io.pagesize.held';
  await rt.services.properties.create(admin, { id: 'io.pagesize.held', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] });
  const holders = Array.from({ length: 2300 }, (_, i) => dataset(`held${String(i).padStart(4, '0')}`));
  for (let i = 0; i < holders.length; i += 1000) {
    await writesOf(rt.services).batchUpsert(admin, ENTITY.dataset, holders.slice(i, i + 1000).map((urn) => ({ urn, aspects: new Map<string, { value: unknown }>([['status', { value: { removed: false } }], ['structuredProperties', { value: { properties: [{ propertyUrn: HELD, values: [{ string: 'first' }] }] } }]]) })));
  }
  // Some holders change again, and one drops the property: a removal is a change of its history too.
  for (const urn of holders.slice(0, 20)) await rt.services.values.upsert(admin, urn, [{ structuredPropertyUrn: HELD, values: [{ stringValue: 'second' }] }]);
  await rt.services.values.remove(admin, holders[30]!, [HELD]);
  const pages = await allPages({ property: HELD });
  const entries = pages.flat();
  expect(entries).toHaveLength(holders.length + 20 + 1);
  expect(new Set(entries.map((e) => `${e.urn} ${e.version}`)).size).toBe(entries.length);
  expect(entries.map((e) => e.time)).toEqual([...entries.map((e) => e.time)].sort((a, b) => b - a));
  expect(entries[0]).toMatchObject({ urn: holders[30], changes: [{ propertyUrn: HELD, before: [{ string: 'first' }], after: [] }] });
  expect(pages.length).toBeGreaterThan(2);
}, 120_000);

test("a property's history page comes from the store as that property's values alone, with times as numbers; the page ends where the whole versions would pass the bound, as before", async () => {
  const OTHER = 'urn:li:structuredProperty:io.pagesize.other';
  const mixed = dataset('mixed');
  await rt.services.properties.create(admin, { id: 'io.pagesize.other', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'MULTIPLE' });
  await writesOf(rt.services).batchUpsert(admin, ENTITY.dataset, [{ urn: mixed, aspects: new Map([['status', { value: { removed: false } }]]) }]);
  // Each write changes NOTES a little and holds 5,000 characters of another property: the whole versions are large, the entries small.
  const big = Array.from({ length: 5 }, (_, i) => ({ stringValue: `${i}-${'o'.repeat(1_000)}` }));
  for (let v = 0; v < 4; v++) await rt.services.values.upsert(admin, mixed, [{ structuredPropertyUrn: NOTES, values: [{ stringValue: `small-${v}` }] }, { structuredPropertyUrn: OTHER, values: big }]);
  const page = await valuesVersions(rt.database.db, { urn: mixed, propertyUrn: NOTES, limit: 1000, maxCharacters: LIMITS.historyPageCharacters });
  expect(page.rows.map((r) => r.properties)).toEqual([3, 2, 1, 0].map((v) => [{ propertyUrn: NOTES, values: [{ string: `small-${v}` }] }]));
  expect(page.rows.map((r) => r.previousProperties)).toEqual([[{ propertyUrn: NOTES, values: [{ string: 'small-2' }] }], [{ propertyUrn: NOTES, values: [{ string: 'small-1' }] }], [{ propertyUrn: NOTES, values: [{ string: 'small-0' }] }], null]);
  for (const r of nonEmpty(page.rows)) expect(typeof r.time).toBe('number');
  expect(page.rows.map((r) => r.time)).toEqual([...page.rows.map((r) => r.time)].sort((a, b) => b - a));
  // The bound counts the versions as stored (the other property's values too): a smaller one ends the page sooner.
  const bounded = await valuesVersions(rt.database.db, { urn: mixed, propertyUrn: NOTES, limit: 1000, maxCharacters: 15_000 });
  expect(bounded.rows.length).toBeLessThan(page.rows.length);
  expect(bounded.more).toBe(true);
});
