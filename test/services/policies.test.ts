/**
 * Policies (issue #40, docs/security.md "Policies") at the services, on a real PostgreSQL
 * and Meilisearch: privileges granted to people, groups and machine tokens on resources
 * selected by type, URN, owners and a structured property's own value; value privileges
 * limited to named properties; every write decided per entity and property in the one
 * write path (a refused entity refuses an all-or-nothing plan whole, a bulk edit reports
 * it); reads restricted inside the search engine's query; why, and who could; policies
 * themselves written, versioned, audited and applied as code. The shipped defaults
 * change nothing (test/integration/authorization.test.ts runs unchanged with them).
 */
import { BatchRefusedError, ForbiddenError, ValidationError } from '../../src/domain/errors.js';
import { ROOT_PRINCIPAL } from '../../src/domain/policies/evaluate.js';
import { ENTITY } from '../../src/domain/registry/entityTypes.js';
import { parseUrn } from '../../src/domain/urn.js';
import { entityPlan, planOf } from '../../src/domain/writes/plan.js';
import { PrivilegeRefusal } from '../../src/services/accessPolicies.js';
import type { Caller } from '../../src/services/caller.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';
import { searchAvailableForTests } from '../support/server.js';
import { datasetUrn, indexCaughtUp, jobsSettled, propertiesAspect, propertyUrn, rejection, serviceCatalog, type ServiceCatalog } from '../support/serviceCatalog.js';
import { evaluationSettled } from '../support/testEvaluation.js';
import { waitFor } from '../support/waitFor.js';
import { withClient } from '../support/storedValues.js';
import { expectEvery, nonEmpty } from '../support/nonEmpty.js';

const ROOT: Caller = { actor: ROOT_PRINCIPAL, scope: 'admin', via: 'rest-v3' };
const person = (id: string, groups: string[], scope: Caller['scope'] = 'write'): Caller => ({ actor: `urn:li:corpuser:${id}@example.com`, scope, groups, tokenKind: 'session', via: 'console' });
const STEWARD = person('sam', ['finance-stewards']);
const PRIVACY = person('pia', ['privacy']);
const OUTSIDER = person('otto', ['marketing']);
const OWNER = person('olga', []);
const LOADER: Caller = { actor: 'urn:li:corpuser:__service_loader', scope: 'write', tokenKind: 'machine' };
const ADMIN_PERSON = person('alice', ['admins'], 'admin');

const DOMAIN = propertyUrn('acme.domain');
const PII = propertyUrn('acme.pii');
const TIER = propertyUrn('acme.tier');
const FIN = [datasetUrn('pol.fin.ledger'), datasetUrn('pol.fin.payroll'), datasetUrn('pol.fin.budget')];
const MKT = [datasetUrn('pol.mkt.leads'), datasetUrn('pol.mkt.campaigns')];
const OWNED = datasetUrn('pol.ops.owned');

let rt: TestRuntime;
let catalog: ServiceCatalog;

const valuesOn = async (urn: string, property: string) => ((await catalog.valuesOf(urn)) as Array<{ propertyUrn: string; values: unknown[] }>).find((p) => p.propertyUrn === property)?.values;
const setTier = (caller: Caller, urn: string, tier: string) => rt.services.values.upsert(caller, urn, [{ structuredPropertyUrn: TIER, values: [{ stringValue: tier }] }]);
const policy = (id: string, body: Record<string, unknown>) => rt.services.policies.create(ROOT, { id, policy: { displayName: id, ...body } });

(searchAvailableForTests() ? describe : describe.skip)('policies', () => {
  beforeAll(async () => {
    rt = await startTestRuntime({ search: true });
    catalog = serviceCatalog(rt, ROOT);
    for (const qn of ['acme.domain', 'acme.pii', 'acme.tier']) await catalog.define(qn, { cardinality: 'SINGLE' });
    await catalog.createDatasets([...FIN, ...MKT, OWNED]);
    for (const urn of FIN) await catalog.setValues(urn, { 'acme.domain': ['finance'] });
    for (const urn of MKT) await catalog.setValues(urn, { 'acme.domain': ['marketing'] });
    await rt.services.writes.submit(ROOT, entityPlan(parseUrn(OWNED), [{ op: 'set', aspect: 'ownership', value: { owners: [{ owner: OWNER.actor, type: 'DATAOWNER' }, { owner: 'urn:li:corpGroup:ops', type: 'DATAOWNER' }] } }]));
    // The shipped editors' policy off: from here on, only what the policies below grant.
    const shipped = await rt.services.policies.get(ROOT, 'propgraph-default-write');
    await rt.services.policies.update(ROOT, shipped.urn, { ...shipped.info, state: 'INACTIVE' });
    await policy('finance-stewards', {
      privileges: ['EDIT_ENTITY', 'EDIT_ENTITY_PROPERTIES'],
      actors: { groups: ['finance-stewards'] },
      resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'] }, { field: 'structuredProperties.acme.domain', values: ['finance'] }] } },
    });
    await policy('privacy', { privileges: ['EDIT_ENTITY_PROPERTIES'], actors: { groups: ['privacy'] }, resources: { privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme.pii'] }] } } });
    await policy('owners', { privileges: ['EDIT_ENTITY_PROPERTIES'], actors: { resourceOwners: true }, resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'] }] } } });
    await policy('loader', { privileges: ['EDIT_ENTITY', 'EDIT_ENTITY_PROPERTIES'], actors: { users: [LOADER.actor] }, resources: { filter: { criteria: [{ field: 'URN', values: ['urn:li:dataset:(urn:li:dataPlatform:kafka,'], condition: 'STARTS_WITH' }] } } });
    await indexCaughtUp(rt);
  }, 180_000);

  afterAll(async () => {
    await rt?.stop();
  });

  describe('values, by a structured property value, by property, by owner, by token', () => {
    test('a finance steward sets values on a finance dataset', async () => {
      await setTier(STEWARD, FIN[0]!, 'gold');
      expect(await valuesOn(FIN[0]!, TIER)).toEqual([{ string: 'gold' }]);
    });

    test('a policy turned off by another replica is in force for the very next writes here, sent together or one by one', async () => {
      // The policies are cached here now, and the writes below ask the counter in one pass: they share one read of it.
      await setTier(STEWARD, FIN[0]!, 'gold');
      const setState = (state: string) =>
        withClient(rt.databaseUrl, (c) => c.query(`UPDATE aspect SET metadata = jsonb_set(metadata, '{state}', $1::jsonb) WHERE urn = 'urn:li:dataHubPolicy:finance-stewards' AND aspect = 'dataHubPolicyInfo' AND version = 0`, [JSON.stringify(state)]));
      await setState('INACTIVE');
      try {
        const together = await Promise.allSettled(FIN.map((urn) => setTier(STEWARD, urn, 'silver')));
        expect(together.map((r) => (r.status === 'rejected' && r.reason instanceof PrivilegeRefusal ? 'refused' : r.status))).toEqual(FIN.map(() => 'refused'));
        await rejection(setTier(STEWARD, FIN[1]!, 'silver'), PrivilegeRefusal);
        expect(await Promise.all(FIN.map((urn) => valuesOn(urn, TIER)))).toEqual([[{ string: 'gold' }], undefined, undefined]);
      } finally {
        await setState('ACTIVE');
      }
      // Turned on again, as the next write here finds at once (the other datasets keep no tier: later tests count on it).
      await setTier(STEWARD, FIN[0]!, 'bronze');
      expect(await valuesOn(FIN[0]!, TIER)).toEqual([{ string: 'bronze' }]);
      await setTier(STEWARD, FIN[0]!, 'gold');
    });

    test("on a marketing dataset the refusal names the privilege, the dataset and the property, and nothing changes", async () => {
      const err = await rejection(setTier(STEWARD, MKT[0]!, 'gold'), PrivilegeRefusal);
      expect(err.message).toMatch(new RegExp(`^Changing the values of acme.tier on ${escaped(MKT[0]!)} needs the EDIT_ENTITY_PROPERTIES privilege on ${escaped(MKT[0]!)} for acme.tier, and no active policy grants it to urn:li:corpuser:sam@example.com \\(groups finance-stewards\\)`));
      expect(err.details).toEqual({ privilege: 'EDIT_ENTITY_PROPERTIES', resource: MKT[0], property: TIER, principal: STEWARD.actor });
      expect(await valuesOn(MKT[0]!, TIER)).toBeUndefined();
    });

    test('the privacy team sets acme.pii anywhere, and no other property', async () => {
      await rt.services.values.upsert(PRIVACY, MKT[1]!, [{ structuredPropertyUrn: PII, values: [{ stringValue: 'email' }] }]);
      expect(await valuesOn(MKT[1]!, PII)).toEqual([{ string: 'email' }]);
      await rejection(setTier(PRIVACY, MKT[1]!, 'gold'), PrivilegeRefusal);
      // A steward may edit finance datasets, but acme.pii only as far as their own policy reaches: every property of finance datasets.
      await rejection(rt.services.values.upsert(STEWARD, MKT[1]!, [{ structuredPropertyUrn: PII, values: [{ stringValue: 'none' }] }]), PrivilegeRefusal);
    });

    test('owners named by the ownership aspect, as a person or through a group, edit their entity', async () => {
      await setTier(OWNER, OWNED, 'silver');
      await setTier(person('oscar', ['ops']), OWNED, 'bronze');
      expect(await valuesOn(OWNED, TIER)).toEqual([{ string: 'bronze' }]);
      await rejection(setTier(OWNER, FIN[1]!, 'silver'), PrivilegeRefusal);
    });

    test('a machine token is named by its principal; its policy reaches URNs by prefix', async () => {
      const kafka = datasetUrn('pol.stream', 'kafka');
      await rt.services.writes.submit(LOADER, entityPlan(parseUrn(kafka), [{ op: 'set', aspect: 'status', value: { removed: false } }]));
      await setTier(LOADER, kafka, 'gold');
      expect(await valuesOn(kafka, TIER)).toEqual([{ string: 'gold' }]);
      await rejection(setTier(LOADER, FIN[2]!, 'gold'), PrivilegeRefusal);
    });

    test('rewriting a value as it stands changes nothing readers see, and asks for no value privilege', async () => {
      await setTier(ROOT, MKT[0]!, 'gold');
      // The outsider writes the entity's values exactly as they are: no property's values change.
      const current = await rt.services.values.get(ROOT, MKT[0]!);
      const outcome = await rt.services.writes.submit(OUTSIDER, entityPlan(parseUrn(MKT[0]!), [{ op: 'set', aspect: 'structuredProperties', value: { properties: current!.properties } }]));
      expect(outcome.result.entities[0]!.status).toBe('unchanged');
    });

    test('an entity the write creates is judged as the write leaves it: created finance, allowed; created marketing, refused', async () => {
      const made = datasetUrn('pol.fin.new');
      await rt.services.writes.submit(STEWARD, entityPlan(parseUrn(made), [{ op: 'set', aspect: 'structuredProperties', value: propertiesAspect({ 'acme.domain': ['finance'] }) }], { createsEntity: true }));
      expect(await valuesOn(made, DOMAIN)).toEqual([{ string: 'finance' }]);
      const other = datasetUrn('pol.mkt.new');
      await rejection(rt.services.writes.submit(STEWARD, entityPlan(parseUrn(other), [{ op: 'set', aspect: 'structuredProperties', value: propertiesAspect({ 'acme.domain': ['marketing'] }) }], { createsEntity: true })), PrivilegeRefusal);
      expect(await rt.services.entities.exists(other)).toBe(false);
    });
  });

  describe('whole plans and bulk edits', () => {
    test('a batch with refused entities is refused whole, listing each, and writes nothing', async () => {
      const plan = planOf([FIN[1]!, MKT[0]!, MKT[1]!].map((urn, i) => ({ urn: parseUrn(urn), changes: [{ op: 'set' as const, aspect: 'structuredProperties', value: propertiesAspect({ 'acme.domain': [i === 0 ? 'finance' : 'marketing'], 'acme.tier': ['platinum'] }) }], label: { at: `[${i}]` } })));
      const err = await rejection(rt.services.writes.submit(STEWARD, plan), BatchRefusedError);
      expect(err.code).toBe('FORBIDDEN');
      expect(err.items.map((i) => [i.at, i.urn, i.error.constructor.name])).toEqual([
        ['[1]', MKT[0], 'PrivilegeRefusal'],
        ['[2]', MKT[1], 'PrivilegeRefusal'],
      ]);
      expect(await valuesOn(FIN[1]!, TIER)).toBeUndefined();
    });

    test('a bulk edit changes the entities the author may and reports the others with the privilege missing', async () => {
      const started = await rt.services.bulkEdits.edit(STEWARD, { query: 'platform:hive AND name:pol', property: TIER, operation: 'set', values: ['silver'] });
      await jobsSettled(rt);
      const job = await rt.services.jobs.get(ROOT, started.jobId!);
      const result = job.result as { changed: number; refused: Array<{ urn: string; reason: string }> };
      expect(result.refused.map((r) => r.urn).sort()).toEqual([...MKT, OWNED].sort());
      expect(result.refused[0]!.reason).toMatch(/needs the EDIT_ENTITY_PROPERTIES privilege/);
      for (const urn of FIN) expect(await valuesOn(urn, TIER)).toEqual([{ string: 'silver' }]);
    });

    test('starting a bulk edit is the BULK_EDIT platform privilege', async () => {
      const platform = await rt.services.policies.get(ROOT, 'propgraph-default-platform');
      await rt.services.policies.update(ROOT, platform.urn, { ...platform.info, privileges: ['MANAGE_ACCESS_TOKENS', 'MANAGE_POLICIES'] });
      try {
        const err = await rejection(rt.services.bulkEdits.edit(STEWARD, { urns: [FIN[0]!], property: TIER, operation: 'set', values: ['gold'] }), PrivilegeRefusal);
        expect(err.message).toMatch(/^Starting a bulk edit needs the BULK_EDIT privilege/);
      } finally {
        await rt.services.policies.delete(ROOT, platform.urn);
      }
    });
  });

  describe('why, and who could', () => {
    test('explain names the policy that grants, or why each does not', async () => {
      const yes = await rt.services.access.explain(STEWARD, { privilege: 'EDIT_ENTITY_PROPERTIES', urn: FIN[0]!, property: 'acme.tier' });
      expect(yes).toMatchObject({ allowed: true, grantedBy: [{ urn: 'urn:li:dataHubPolicy:finance-stewards' }], basis: 'caller' });
      const no = await rt.services.access.explain(STEWARD, { privilege: 'EDIT_ENTITY_PROPERTIES', urn: MKT[0]!, property: 'acme.tier' });
      expect(no.allowed).toBe(false);
      expect(no.notGranting.find((r) => r.urn === 'urn:li:dataHubPolicy:finance-stewards')?.refusal).toMatch(/does not match its resources \(structuredProperties.acme.domain in finance\)/);
      expect(no.summary).toMatch(/may not EDIT_ENTITY_PROPERTIES/);
    });

    test("explaining someone else's access needs MANAGE_POLICIES", async () => {
      await rejection(rt.services.access.explain(STEWARD, { principal: PRIVACY.actor, privilege: 'EDIT_ENTITY_PROPERTIES', urn: MKT[0]! }), ForbiddenError);
      const other = await rt.services.access.explain(ADMIN_PERSON, { principal: PRIVACY.actor, groups: ['privacy'], scope: 'write', privilege: 'EDIT_ENTITY_PROPERTIES', urn: MKT[0]!, property: 'acme.pii' });
      expect(other).toMatchObject({ principal: PRIVACY.actor, basis: 'given', allowed: true, grantedBy: [{ urn: 'urn:li:dataHubPolicy:privacy' }] });
    });

    test('who could edit acme.pii on a marketing dataset: the privacy group and its owners policy', async () => {
      const who = await rt.services.access.whoCould(OUTSIDER, { privilege: 'EDIT_ENTITY_PROPERTIES', urn: MKT[0]!, property: 'acme.pii' });
      expect(who.grantees.map((g) => [g.policy.urn, g.actors])).toEqual([['urn:li:dataHubPolicy:privacy', ['urn:li:corpGroup:privacy']]]);
      const owned = await rt.services.access.whoCould(OUTSIDER, { privilege: 'EDIT_ENTITY_PROPERTIES', urn: OWNED, property: 'acme.tier' });
      expect(owned.grantees.map((g) => g.policy.urn)).toEqual(['urn:li:dataHubPolicy:owners']);
      expect(owned.owners).toEqual([OWNER.actor, 'urn:li:corpGroup:ops']);
    });

    test('a definition is managed only where the policy names it: the console offers edits of acme.pii, not of acme.tier', async () => {
      const definer = person('dora', ['definers']);
      await policy('definers', { privileges: ['MANAGE_STRUCTURED_PROPERTIES'], actors: { groups: ['definers'] }, resources: { privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme.pii'] }] } } });
      try {
        expect(await rt.services.access.entityPrivileges(definer, PII)).toMatchObject({ canEdit: true, canSoftDelete: true, canDelete: false });
        expect(await rt.services.access.entityPrivileges(definer, TIER)).toMatchObject({ canEdit: false, canSoftDelete: false });
      } finally {
        await rt.services.policies.delete(ROOT, 'definers');
      }
    });

    test('what one may do to an entity, as the console shows it', async () => {
      expect(await rt.services.access.entityPrivileges(PRIVACY, MKT[0]!)).toMatchObject({ canView: true, canEdit: false, canEditAllProperties: false, editableProperties: [PII] });
      expect(await rt.services.access.entityPrivileges(STEWARD, FIN[0]!)).toMatchObject({ canEdit: true, canEditAllProperties: true, canDelete: false });
      expect((await rt.services.access.privileges(STEWARD)).managePolicies).toBe(false);
      expect((await rt.services.access.privileges(ADMIN_PERSON)).managePolicies).toBe(true);
    });
  });

  describe('reads', () => {
    const READER = person('rita', ['finance-readers'], 'read');

    beforeAll(async () => {
      await policy('finance-readers', { privileges: ['VIEW_ENTITY_PAGE'], actors: { groups: ['finance-readers'] }, resources: { filter: { criteria: [{ field: 'structuredProperties.acme.domain', values: ['finance'] }] } } });
      const shipped = await rt.services.policies.get(ROOT, 'propgraph-default-read');
      await rt.services.policies.update(ROOT, shipped.urn, { ...shipped.info, state: 'INACTIVE' });
      await indexCaughtUp(rt);
    });

    afterAll(async () => {
      await rt.services.policies.delete(ROOT, 'propgraph-default-read');
    });

    test('a search counts and pages only what the reader may read, inside the engine', async () => {
      const page = await rt.services.search.scroll(READER, { types: ['dataset'], query: 'name:pol', count: 2 });
      const financeCount = FIN.length + 1;
      expect(page.total).toBe(financeCount);
      const facets = await rt.services.search.aggregate(READER, { types: ['dataset'], query: 'name:pol', facets: ['structuredProperties.acme.domain'] });
      expect(facets.facets[0]!.aggregations.map((a) => [a.value, a.count])).toEqual([['finance', financeCount]]);
    });

    test('reading another entity is refused naming VIEW_ENTITY_PAGE; a property history shows what may be read', async () => {
      const err = await rejection(rt.services.entities.getEntity(READER, MKT[0]!), PrivilegeRefusal);
      expect(err.message).toMatch(/needs the VIEW_ENTITY_PAGE privilege on urn:li:dataset:\(urn:li:dataPlatform:hive,pol.mkt.leads,PROD\)/);
      const history = await rt.services.history.valueHistory(READER, { property: TIER, count: 100 });
      expectEvery(history.entries, (e) => e.urn.includes('pol.fin.'), 'the history entries');
    });

    test("a property's lifecycle shows to those who may read the property: its history across entities leaves it out for others", async () => {
      expect((await rt.services.history.valueHistory(ROOT, { property: TIER, count: 100 })).events.map((e) => e.event)).toContain('created');
      expect((await rt.services.history.valueHistory(READER, { property: TIER, count: 100 })).events).toEqual([]);
    });

    test('a bulk edit over a search selects, counts and names only what its author may read', async () => {
      const author = person('rhea', ['finance-readers', 'finance-stewards']);
      const readable = (await rt.services.search.scroll(READER, { types: ['dataset'], query: 'name:pol', count: 100 })).entities.map((e) => e.urn).sort();
      expect(readable).toEqual(expect.arrayContaining(FIN));
      const dry = await rt.services.bulkEdits.edit(author, { query: 'name:pol', property: TIER, operation: 'set', values: ['bronze'], dryRun: true });
      expect([dry.entities, dry.refused]).toEqual([readable.length, []]);
      const started = await rt.services.bulkEdits.edit(author, { query: 'name:pol', property: TIER, operation: 'set', values: ['bronze'] });
      await jobsSettled(rt);
      const result = (await rt.services.jobs.get(ROOT, started.jobId!)).result as { changed: number; unchanged: number; refused: Array<{ urn: string }> };
      expect([result.changed + result.unchanged, result.refused]).toEqual([readable.length, []]);
      for (const urn of nonEmpty(MKT, 'the marketing datasets')) expect(await valuesOn(urn, TIER)).not.toEqual([{ string: 'bronze' }]);
      for (const urn of nonEmpty(FIN, 'the finance datasets')) expect(await valuesOn(urn, TIER)).toEqual([{ string: 'bronze' }]);
    });

    test("a metadata test's failing assets name and count only what the reader may read", async () => {
      await rt.services.tests.createTest(ROOT, { id: 'pol-never', name: 'never', category: 'Governance', definition: { json: JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'urn', operator: 'regex_match', values: ['^never$'] }] }) } });
      await evaluationSettled(rt, { indexed: true, timeoutMs: 120_000 });
      const everyone = await rt.services.compliance.failing(ROOT, { urn: 'urn:li:test:pol-never', count: 100 });
      expect(everyone.entities.map((e) => e.urn)).toEqual(expect.arrayContaining([...FIN, ...MKT]));
      const readable = (await rt.services.search.scroll(READER, { types: ['dataset'], query: '*', count: 100 })).entities.map((e) => e.urn).sort();
      const theirs = await rt.services.compliance.failing(READER, { urn: 'urn:li:test:pol-never', count: 100 });
      expect([theirs.total, theirs.entities.map((e) => e.urn).sort()]).toEqual([readable.length, readable]);
      expect(readable).toEqual(expect.arrayContaining(FIN));
    });

    test('a policy changed by another replica is in force for the very next search and facet count here', async () => {
      const search = () => rt.services.search.scroll(READER, { types: ['dataset'], query: 'name:pol', count: 100 });
      const facets = async () => (await rt.services.search.aggregate(READER, { types: ['dataset'], query: 'name:pol', facets: ['structuredProperties.acme.domain'] })).facets[0]!.aggregations.map((a) => [a.value, a.count]);
      // This process's policies are cached now: the search runs on them beside the counter's read.
      const financeCount = (await search()).total;
      expect(financeCount).toBeGreaterThanOrEqual(FIN.length);
      // As another replica would: the stored policy turned off in the database, not through this runtime.
      const setState = (state: string) =>
        withClient(rt.databaseUrl, (c) => c.query(`UPDATE aspect SET metadata = jsonb_set(metadata, '{state}', $1::jsonb) WHERE urn = 'urn:li:dataHubPolicy:finance-readers' AND aspect = 'dataHubPolicyInfo' AND version = 0`, [JSON.stringify(state)]));
      await setState('INACTIVE');
      try {
        expect((await search()).total).toBe(0);
        expect(await facets()).toEqual([]);
      } finally {
        await setState('ACTIVE');
      }
      expect((await search()).total).toBe(financeCount);
      expect(await facets()).toEqual([['finance', financeCount]]);
    });

    test('one request is judged on the policies its first check found; a write in it reads them again, and so does the rest of it', async () => {
      // Rita with a token that may write: the policies let her read finance's datasets, and write nothing.
      const inRequest = (id: string): Caller => ({ ...person('rita', ['finance-readers'], 'write'), request: { id } });
      const search = (caller: Caller) => rt.services.search.scroll(caller, { types: ['dataset'], query: 'name:pol', count: 100 });
      const first = inRequest('first');
      const financeCount = (await search(first)).total;
      expect(financeCount).toBeGreaterThanOrEqual(FIN.length);
      const setState = (state: string) =>
        withClient(rt.databaseUrl, (c) => c.query(`UPDATE aspect SET metadata = jsonb_set(metadata, '{state}', $1::jsonb) WHERE urn = 'urn:li:dataHubPolicy:finance-readers' AND aspect = 'dataHubPolicyInfo' AND version = 0`, [JSON.stringify(state)]));
      await setState('INACTIVE');
      try {
        // The same request: the policies it began with. The next request: the change.
        expect((await search(first)).total).toBe(financeCount);
        expect((await search(inRequest('next'))).total).toBe(0);
        // A write in the first request is decided on the policies as they are now (a reader may not write), and its later reads too.
        await rejection(setTier(first, FIN[0]!, 'gold'), PrivilegeRefusal);
        expect((await search(first)).total).toBe(0);
      } finally {
        await setState('ACTIVE');
      }
      expect((await search(inRequest('last'))).total).toBe(financeCount);
    });

    test('a reader outside every policy reads nothing: an empty search, not an error', async () => {
      const page = await rt.services.search.scroll(person('nobody', [], 'read'), { types: ['dataset'], query: '*' });
      expect(page.total).toBe(0);
    });
  });

  describe('policies as data', () => {
    test('a change is in force for the next request, versioned, with lifecycle events', async () => {
      await policy('tmp', { privileges: ['EDIT_ENTITY_PROPERTIES'], actors: { users: [OUTSIDER.actor] }, resources: { filter: { criteria: [{ field: 'URN', values: [MKT[0]!] }] } } });
      await setTier(OUTSIDER, MKT[0]!, 'silver');
      const view = await rt.services.policies.get(ROOT, 'tmp');
      await rt.services.policies.update(ROOT, 'tmp', { ...view.info, state: 'INACTIVE' });
      await rejection(setTier(OUTSIDER, MKT[0]!, 'bronze'), PrivilegeRefusal);
      const history = await rt.services.history.valueHistory(ROOT, { urn: view.urn, count: 10 });
      expect(history.events.map((e) => e.event)).toEqual(['changed', 'created']);
      const v1 = await rt.services.history.aspectVersion(ROOT, view.urn, 'dataHubPolicyInfo', 1);
      expect((v1.value as { state: string }).state).toBe('ACTIVE');
      await rt.services.policies.delete(ROOT, 'tmp');
      expect((await rt.services.policies.list(ROOT, { query: 'tmp' })).total).toBe(0);
    });

    test('managing policies needs admin scope and MANAGE_POLICIES; the root token keeps it whatever the policies say', async () => {
      const body = { displayName: 'x', privileges: ['VIEW_ENTITY_PAGE'], actors: { allUsers: true } };
      await rejection(rt.services.policies.create(STEWARD, { id: 'by-steward', policy: body }), ForbiddenError);
      const platform = await rt.services.policies.get(ROOT, 'propgraph-default-platform');
      await rt.services.policies.update(ROOT, platform.urn, { ...platform.info, state: 'INACTIVE' });
      try {
        const err = await rejection(rt.services.policies.create(ADMIN_PERSON, { id: 'by-admin', policy: body }), PrivilegeRefusal);
        expect(err.message).toMatch(/needs the MANAGE_POLICIES privilege/);
      } finally {
        await rt.services.policies.delete(ROOT, platform.urn);
      }
      await rt.services.policies.create(ADMIN_PERSON, { id: 'by-admin', policy: body });
      await rt.services.policies.delete(ADMIN_PERSON, 'by-admin');
    });

    test('an invalid policy is refused naming the field, and changes nothing', async () => {
      const err = await rejection(policy('bad', { privileges: ['EDIT_EVERYTHING'], actors: { allUsers: true } }), ValidationError);
      expect(err.field).toBe('policy.privileges[0]');
      expect((await rt.services.policies.list(ROOT, { query: 'bad' })).total).toBe(0);
    });

    test('a shipped default cannot be deleted, only turned off; deleting its stored version brings it back', async () => {
      await rejection(rt.services.policies.delete(ROOT, 'propgraph-default-admin'), ValidationError);
      const listed = await rt.services.policies.list(ROOT, { query: 'propgraph-default' });
      expect(listed.policies.map((p) => [p.urn, p.origin, p.policy.state])).toEqual([
        ['urn:li:dataHubPolicy:propgraph-default-admin', 'default', 'ACTIVE'],
        ['urn:li:dataHubPolicy:propgraph-default-platform', 'default', 'ACTIVE'],
        ['urn:li:dataHubPolicy:propgraph-default-read', 'default', 'ACTIVE'],
        ['urn:li:dataHubPolicy:propgraph-default-write', 'stored', 'INACTIVE'],
      ]);
    });

    test('applying a file: a dry run says what changes for whom and writes nothing; apply writes it; prune removes the rest', async () => {
      const file = [
        { id: 'as-code', displayName: 'As code', privileges: ['EDIT_ENTITY_PROPERTIES'], actors: { groups: ['analysts'] }, resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'] }] } } },
        { id: 'privacy', displayName: 'privacy', privileges: ['EDIT_ENTITY_PROPERTIES', 'EDIT_ENTITY'], actors: { groups: ['privacy'] }, resources: { privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme.pii'] }] } } },
      ];
      const dry = await rt.services.policies.apply(ROOT, { policies: file, dryRun: true });
      expect(dry.result.changes.map((c) => [c.urn, c.change, c.forWhom])).toEqual([
        ['urn:li:dataHubPolicy:as-code', 'create', [{ actor: 'urn:li:corpGroup:analysts', gains: ['EDIT_ENTITY_PROPERTIES'], loses: [] }]],
        ['urn:li:dataHubPolicy:privacy', 'update', [{ actor: 'urn:li:corpGroup:privacy', gains: ['EDIT_ENTITY'], loses: [] }]],
      ]);
      expect((await rt.services.policies.list(ROOT, { query: 'as-code' })).total).toBe(0);
      await rt.services.policies.apply(ROOT, { policies: file });
      expect((await rt.services.policies.get(ROOT, 'as-code')).origin).toBe('stored');
      const pruned = await rt.services.policies.apply(ROOT, { policies: file, prune: true, dryRun: true });
      const byUrn = new Map(pruned.result.changes.map((c) => [c.urn, c.change]));
      expect(byUrn.get('urn:li:dataHubPolicy:owners')).toBe('delete');
      expect(byUrn.get('urn:li:dataHubPolicy:propgraph-default-read')).toBe('deactivate');
      expect(byUrn.get('urn:li:dataHubPolicy:as-code')).toBe('unchanged');
      expect((await rt.services.policies.get(ROOT, 'owners')).origin).toBe('stored');
    });
  });

  test('a principal with no groups and the shipped read policy reads as before', async () => {
    await waitFor('the shipped read policy to be in force again', 10_000, async () => ((await rt.services.policies.get(ROOT, 'propgraph-default-read')).origin === 'default' ? true : undefined));
    const page = await rt.services.search.scroll(person('nobody', [], 'read'), { types: ['dataset'], query: 'name:pol' });
    expect(page.total).toBeGreaterThanOrEqual(FIN.length + MKT.length + 1);
    expect(ENTITY.dataHubPolicy.writePrivilege).toBe('MANAGE_POLICIES');
  });
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
