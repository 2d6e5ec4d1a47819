/**
 * Bulk edits (issue #27 item 3, docs/contract.md §13), at the services on a real
 * PostgreSQL and Meilisearch: one property's values set, added or removed on every
 * entity a search selects (or the entities named), as a job with progress, each entity
 * through the one write path; a dry run says what would change and writes nothing; the
 * entities the rules refuse are reported with the reason while the others change, and a
 * refused entity keeps every value as it was (nothing half-applied); the history names
 * the person who asked, the interface and the job.
 */
import { NotFoundError, ValidationError } from '../../src/domain/errors.js';
import { ENTITY } from '../../src/domain/registry/entityTypes.js';
import type { Caller } from '../../src/services/caller.js';
import type { JobView } from '../../src/services/jobs/jobService.js';
import { searchAvailableForTests } from '../support/server.js';
import { indexCaughtUp } from '../support/serviceCatalog.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';
import { waitFor } from '../support/waitFor.js';
import { writesOf } from '../support/writes.js';

const TIER = 'urn:li:structuredProperty:io.bulk.tier';
const TAGS = 'urn:li:structuredProperty:io.bulk.tags';
const LOCKED = 'urn:li:structuredProperty:io.bulk.locked';
const dataset = (platform: string, name: string) => `urn:li:dataset:(urn:li:dataPlatform:${platform},bulk.${name},PROD)`;
const HIVE = Array.from({ length: 40 }, (_, i) => dataset('hive', `t${String(i).padStart(2, '0')}`));
const KAFKA = Array.from({ length: 5 }, (_, i) => dataset('kafka', `s${i}`));
const steward: Caller = { actor: 'urn:li:corpuser:sam@example.com', scope: 'write', via: 'cli' };
const admin: Caller = { actor: 'urn:li:corpuser:admin', scope: 'admin', via: 'rest-v3' };

let rt: TestRuntime;

const tierOf = async (urn: string) => (await rt.services.values.get(admin, urn))?.properties.find((p) => p.propertyUrn === TIER)?.values;

async function finished(jobId: string): Promise<JobView> {
  return waitFor(`bulk edit job ${jobId}`, 60_000, async () => {
    const job = await rt.services.jobs.get(admin, jobId);
    return job.status === 'done' || job.status === 'failed' ? job : undefined;
  });
}

(searchAvailableForTests() ? describe : describe.skip)('bulk edits', () => {
  beforeAll(async () => {
    rt = await startTestRuntime({ search: true });
    await rt.services.properties.create(admin, {
      id: 'io.bulk.tier',
      valueType: 'urn:li:dataType:svc.string',
      entityTypes: ['urn:li:entityType:svc.dataset'],
      allowedValues: [{ stringValue: 'gold' }, { stringValue: 'silver' }],
    });
    await rt.services.properties.create(admin, { id: 'io.bulk.tags', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], cardinality: 'MULTIPLE' });
    await rt.services.properties.create(admin, { id: 'io.bulk.locked', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], immutable: true });
    await writesOf(rt.services).batchUpsert(admin, ENTITY.dataset, [...HIVE, ...KAFKA].map((urn) => ({ urn, aspects: new Map([['status', { value: { removed: false } }]]) })));
    await rt.services.values.upsert(admin, HIVE[0]!, [{ structuredPropertyUrn: TIER, values: [{ stringValue: 'gold' }] }, { structuredPropertyUrn: TAGS, values: [{ stringValue: 'pii' }] }]);
    await rt.services.values.upsert(admin, HIVE[1]!, [{ structuredPropertyUrn: LOCKED, values: [{ stringValue: 'frozen' }] }]);
    // The edits select by search: every dataset must be in the index first. A write's bounded
    // wait for it can run out on a loaded machine (a whole run saw 2 of the 40 selected).
    await indexCaughtUp(rt);
  }, 180_000);

  afterAll(async () => {
    await rt?.stop();
  });

  test('a dry run decides every selected entity and writes nothing', async () => {
    const preview = await rt.services.bulkEdits.edit(steward, { query: 'platform:hive', property: 'io.bulk.tier', operation: 'set', values: [{ string: 'silver' }], dryRun: true });
    expect(preview).toMatchObject({ dryRun: true, propertyUrn: TIER, operation: 'set', entities: 40, jobId: null, changed: 40, unchanged: 0, refused: [] });
    expect(preview.changes.find((c) => c.urn === HIVE[0])).toEqual({ urn: HIVE[0], before: [{ string: 'gold' }], after: [{ string: 'silver' }] });
    expect(preview.changes.find((c) => c.urn === HIVE[5])).toEqual({ urn: HIVE[5], before: [], after: [{ string: 'silver' }] });
    expect(await tierOf(HIVE[0]!)).toEqual([{ string: 'gold' }]);
    expect(await tierOf(HIVE[5]!)).toBeUndefined();
  });

  test("a set over a search's 40 results runs as a job with progress, and the history names who asked, how, and the job", async () => {
    const started = await rt.services.bulkEdits.edit(steward, { query: 'platform:hive', property: TIER, operation: 'set', values: ['gold'] });
    expect(started).toMatchObject({ dryRun: false, entities: 40 });
    const job = await finished(started.jobId!);
    expect(job).toMatchObject({ kind: 'bulk-edit-values', status: 'done', total: 40, done: 40, remaining: 0 });
    expect(job.result).toEqual({ changed: 39, unchanged: 1, refusedCount: 0, skipped: 0, changedSinceSelection: 0, refused: [] });
    for (const urn of HIVE) expect(await tierOf(urn)).toEqual([{ string: 'gold' }]);
    for (const urn of KAFKA) expect(await tierOf(urn)).toBeUndefined();
    const history = await rt.services.history.valueHistory(admin, { urn: HIVE[7]!, property: TIER });
    expect(history.entries).toMatchObject([{ actor: steward.actor, via: 'cli', changes: [{ propertyUrn: TIER, before: [], after: [{ string: 'gold' }] }] }]);
    const stored = await rt.services.history.aspectVersion(admin, HIVE[7]!, 'structuredProperties', 0);
    expect(stored.systemMetadata).toMatchObject({ runId: `bulk-edit-${started.jobId}` });
  });

  test('add and remove keep the other values and properties', async () => {
    const added = await rt.services.bulkEdits.edit(steward, { urns: HIVE.slice(0, 3), property: TAGS, operation: 'add', values: ['reviewed'] });
    await finished(added.jobId!);
    expect((await rt.services.values.get(admin, HIVE[0]!))?.properties).toEqual([
      { propertyUrn: TIER, values: [{ string: 'gold' }] },
      { propertyUrn: TAGS, values: [{ string: 'pii' }, { string: 'reviewed' }] },
    ]);
    const removed = await rt.services.bulkEdits.edit(steward, { urns: HIVE.slice(0, 3), property: TAGS, operation: 'remove', values: ['pii'] });
    expect((await finished(removed.jobId!)).result).toMatchObject({ changed: 1, unchanged: 2 });
    expect((await rt.services.values.get(admin, HIVE[0]!))?.properties.find((p) => p.propertyUrn === TAGS)?.values).toEqual([{ string: 'reviewed' }]);
    const gone = await rt.services.bulkEdits.edit(steward, { urns: HIVE.slice(0, 3), property: TAGS, operation: 'remove' });
    expect((await finished(gone.jobId!)).result).toMatchObject({ changed: 3 });
    expect((await rt.services.values.get(admin, HIVE[1]!))?.properties.map((p) => p.propertyUrn).sort()).toEqual([LOCKED, TIER]);
  });

  test('entities the rules refuse are reported with the reason; every other entity changes', async () => {
    const missing = dataset('hive', 'never-created');
    const started = await rt.services.bulkEdits.edit(steward, { urns: [HIVE[1]!, HIVE[2]!, missing], property: LOCKED, operation: 'set', values: ['thawed'] });
    const job = await finished(started.jobId!);
    expect(job.result).toMatchObject({ changed: 1, unchanged: 0, refusedCount: 2 });
    const refused = (job.result as { refused: Array<{ urn: string; reason: string }> }).refused;
    expect(refused).toEqual([
      { urn: HIVE[1], reason: expect.stringMatching(/is immutable/) },
      { urn: missing, reason: expect.stringMatching(/does not exist/) },
    ]);
    expect((await rt.services.values.get(admin, HIVE[2]!))?.properties.find((p) => p.propertyUrn === LOCKED)?.values).toEqual([{ string: 'thawed' }]);
  });

  test('bad requests are refused before anything runs', async () => {
    await expect(rt.services.bulkEdits.edit(steward, { query: '*', property: TIER, operation: 'set', values: ['platinum'] })).rejects.toThrow(/should be one of/);
    await expect(rt.services.bulkEdits.edit(steward, { query: '*', property: TIER, operation: 'set' })).rejects.toThrow(ValidationError);
    await expect(rt.services.bulkEdits.edit(steward, { query: '*', property: TIER, operation: 'paint', values: ['gold'] })).rejects.toThrow(/operation must be one of set, add, remove/);
    await expect(rt.services.bulkEdits.edit(steward, { property: TIER, operation: 'set', values: ['gold'] })).rejects.toThrow(/Select the entities/);
    await expect(rt.services.bulkEdits.edit(steward, { query: '*', property: 'io.bulk.nothing', operation: 'set', values: ['gold'] })).rejects.toThrow(NotFoundError);
    const tooMany = Array.from({ length: 10_001 }, (_, i) => dataset('hive', `many${i}`));
    await expect(rt.services.bulkEdits.edit(steward, { urns: tooMany, property: TIER, operation: 'set', values: ['gold'] })).rejects.toThrow(/at most 10000/);
    expect((await rt.services.jobs.list(admin, { kind: 'bulk-edit-values' })).length).toBe(5);
  });

  test("an entity whose write the rules refuse keeps every value exactly as before, and the job names it with the reason", async () => {
    const [target, other] = [HIVE[3]!, KAFKA[0]!];
    await rt.services.values.upsert(admin, target, [{ structuredPropertyUrn: TAGS, values: [{ stringValue: 'pii' }, { stringValue: 'finance' }] }, { structuredPropertyUrn: LOCKED, values: [{ stringValue: 'kept' }] }]);
    const before = await rt.services.values.get(admin, target);
    expect(before?.properties).toEqual([
      { propertyUrn: TIER, values: [{ string: 'gold' }] },
      { propertyUrn: TAGS, values: [{ string: 'pii' }, { string: 'finance' }] },
      { propertyUrn: LOCKED, values: [{ string: 'kept' }] },
    ]);
    const storedBefore = await rt.services.history.aspectVersion(admin, target, 'structuredProperties', 0);
    const historyBefore = (await rt.services.history.valueHistory(admin, { urn: target })).entries.length;
    // Adding silver to a tier that holds gold gives the entity two values of a single-valued property: the rules refuse its write.
    const edit = { urns: [target, other], property: TIER, operation: 'add', values: ['silver'] };
    const preview = await rt.services.bulkEdits.edit(steward, { ...edit, dryRun: true });
    expect(preview).toMatchObject({ changed: 1, unchanged: 0, refused: [{ urn: target, reason: expect.stringMatching(/has cardinality SINGLE, but 2 values were given/) }] });
    const started = await rt.services.bulkEdits.edit(steward, edit);
    const job = await finished(started.jobId!);
    expect(job.status).toBe('done');
    expect(job.result).toEqual({
      changed: 1,
      unchanged: 0,
      refusedCount: 1,
      skipped: 0,
      changedSinceSelection: 0,
      refused: [{ urn: target, reason: `Property: ${TIER} has cardinality SINGLE, but 2 values were given: [{string=gold}, {string=silver}]` }],
    });
    expect(await rt.services.values.get(admin, target)).toEqual(before);
    expect(await rt.services.history.aspectVersion(admin, target, 'structuredProperties', 0)).toEqual(storedBefore);
    expect((await rt.services.history.valueHistory(admin, { urn: target })).entries).toHaveLength(historyBefore);
    expect(await tierOf(other)).toEqual([{ string: 'silver' }]);
  });
});
