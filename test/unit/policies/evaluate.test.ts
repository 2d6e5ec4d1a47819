/**
 * Whether the policies grant a privilege (src/domain/policies/evaluate.ts): actors by
 * name, group, everyone or ownership; resources by type, URN, platform, domain, tag and
 * a structured property's value; value privileges limited to named properties; the
 * token's scope a ceiling above all; the system and the root token outside policies.
 */
import type { TokenScope } from '../../../src/domain/accessToken.js';
import { DEFAULT_POLICIES } from '../../../src/domain/policies/defaults.js';
import { ALL_PROPERTIES, PrincipalPolicies, ROOT_PRINCIPAL, type Principal } from '../../../src/domain/policies/evaluate.js';
import { parsePolicy, policyUrn, type Policy } from '../../../src/domain/policies/policy.js';
import { PRIVILEGE_NAMES, PRIVILEGES } from '../../../src/domain/policies/privileges.js';
import type { ResourceFacts } from '../../../src/domain/policies/resources.js';
import type { TypedValue } from '../../../src/domain/typedValue.js';

const PII = 'urn:li:structuredProperty:acme.pii';
const DOMAIN = 'urn:li:structuredProperty:acme.domain';

function facts(urn: string, more: Partial<ResourceFacts> & { valuesOf?: Record<string, TypedValue[]> } = {}): ResourceFacts {
  return { urn, entityType: 'dataset', platform: 'urn:li:dataPlatform:hive', domains: [], owners: [], tags: [], values: new Map(Object.entries(more.valuesOf ?? {})), ...more };
}
const FINANCE = facts('urn:li:dataset:(urn:li:dataPlatform:hive,fin.ledger,PROD)', { valuesOf: { [DOMAIN]: [{ string: 'Finance' }] }, owners: ['urn:li:corpuser:olga@example.com'] });
const MARKETING = facts('urn:li:dataset:(urn:li:dataPlatform:hive,mkt.leads,PROD)', { valuesOf: { [DOMAIN]: [{ string: 'marketing' }] }, owners: ['urn:li:corpGroup:marketing'] });

const who = (actor: string, groups: string[] = [], scope: TokenScope = 'write'): Principal => ({ actor, groups, scope });
const policy = (id: string, input: Record<string, unknown>): Policy => parsePolicy(policyUrn(id), { displayName: id, ...input });

const financeStewards = policy('finance', {
  privileges: ['EDIT_ENTITY_PROPERTIES'],
  actors: { groups: ['finance-stewards'] },
  resources: { filter: { criteria: [{ field: 'TYPE', values: ['dataset'] }, { field: 'structuredProperties.acme.domain', values: ['finance'] }] } },
});
const privacy = policy('privacy', { privileges: ['EDIT_ENTITY_PROPERTIES'], actors: { groups: ['privacy'] }, resources: { privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme.pii'] }] } } });
const owners = policy('owners', { privileges: ['EDIT_ENTITY'], actors: { resourceOwners: true } });
const readers = policy('readers', { privileges: ['VIEW_ENTITY_PAGE'], actors: { allUsers: true } });

const set = (principal: Principal, ...policies: Policy[]) => new PrincipalPolicies(principal, policies);

test('a value filter grants on the entities holding the value (compared as the search engine compares texts, without case)', () => {
  const steward = set(who('urn:li:corpuser:sam@example.com', ['finance-stewards']), financeStewards);
  expect(steward.allows('EDIT_ENTITY_PROPERTIES', { resource: FINANCE, property: DOMAIN })).toBe(true);
  expect(steward.allows('EDIT_ENTITY_PROPERTIES', { resource: MARKETING, property: DOMAIN })).toBe(false);
  expect(set(who('urn:li:corpuser:sam@example.com', ['other']), financeStewards).allows('EDIT_ENTITY_PROPERTIES', { resource: FINANCE, property: DOMAIN })).toBe(false);
});

test('a privilege limited to named properties covers those only, and never an act on every property', () => {
  const p = set(who('urn:li:corpuser:pia@example.com', ['privacy']), privacy);
  expect(p.allows('EDIT_ENTITY_PROPERTIES', { resource: MARKETING, property: PII })).toBe(true);
  expect(p.allows('EDIT_ENTITY_PROPERTIES', { resource: MARKETING, property: DOMAIN })).toBe(false);
  expect(p.allows('EDIT_ENTITY_PROPERTIES', { resource: MARKETING, property: ALL_PROPERTIES })).toBe(false);
});

test('a privilege on every property but some covers the rest, never those, and never an act on every property', () => {
  const allButPii = policy('all-but-pii', { privileges: ['EDIT_ENTITY_PROPERTIES'], actors: { groups: ['finance-stewards'] }, resources: { privilegeConstraints: { criteria: [{ field: 'PROPERTY', values: ['acme.pii'], condition: 'NOT_EQUALS' }] } } });
  const steward = set(who('urn:li:corpuser:sam@example.com', ['finance-stewards']), allButPii);
  expect(steward.allows('EDIT_ENTITY_PROPERTIES', { resource: FINANCE, property: DOMAIN })).toBe(true);
  expect(steward.allows('EDIT_ENTITY_PROPERTIES', { resource: FINANCE, property: PII })).toBe(false);
  expect(steward.allows('EDIT_ENTITY_PROPERTIES', { resource: FINANCE, property: ALL_PROPERTIES })).toBe(false);
  expect(steward.decide('EDIT_ENTITY_PROPERTIES', { resource: FINANCE, property: PII }).notGranting[0]!.refusal).toBe('it covers every property but acme.pii, not acme.pii');
  // The privacy team's policy grants what the stewards' leaves out, to them only.
  const both = set(who('urn:li:corpuser:pia@example.com', ['finance-stewards', 'privacy']), allButPii, privacy);
  expect(both.allows('EDIT_ENTITY_PROPERTIES', { resource: FINANCE, property: PII })).toBe(true);
});

test('owners are the ownership aspect: the actor, or one of their groups', () => {
  expect(set(who('urn:li:corpuser:olga@example.com'), owners).allows('EDIT_ENTITY', { resource: FINANCE })).toBe(true);
  expect(set(who('urn:li:corpuser:olga@example.com'), owners).allows('EDIT_ENTITY', { resource: MARKETING })).toBe(false);
  expect(set(who('urn:li:corpuser:mo@example.com', ['marketing']), owners).allows('EDIT_ENTITY', { resource: MARKETING })).toBe(true);
});

test("the token's scope is a ceiling: a policy granting a write privilege does nothing for a read token", () => {
  expect(set(who('urn:li:corpuser:sam@example.com', ['finance-stewards'], 'read'), financeStewards).allows('EDIT_ENTITY_PROPERTIES', { resource: FINANCE, property: DOMAIN })).toBe(false);
});

test('the shipped defaults grant every privilege exactly within the scope that allowed it before policies', () => {
  for (const scope of ['read', 'write', 'admin'] as const) {
    const p = set(who('urn:li:corpuser:anyone'), ...DEFAULT_POLICIES);
    const principal = new PrincipalPolicies(who('urn:li:corpuser:anyone', [], scope), DEFAULT_POLICIES);
    for (const privilege of PRIVILEGE_NAMES) {
      const target = PRIVILEGES[privilege].kind === 'platform' ? {} : { resource: MARKETING, property: PII };
      const expected = ['read', 'write', 'admin'].indexOf(scope) >= ['read', 'write', 'admin'].indexOf(PRIVILEGES[privilege].ceiling);
      expect([privilege, scope, principal.allows(privilege, target)]).toEqual([privilege, scope, expected]);
    }
    expect(p.needsFor(PRIVILEGE_NAMES)).toEqual({ aspects: [], values: false });
  }
});

test('the system and the root token are outside policies (break glass), within their scope', () => {
  expect(set(who(ROOT_PRINCIPAL, [], 'admin')).allows('MANAGE_POLICIES')).toBe(true);
  expect(set(who('urn:li:corpuser:__propgraph_system', [], 'admin')).allows('DELETE_ENTITY', { resource: FINANCE })).toBe(true);
  expect(set(who('urn:li:corpuser:__service_loader', [], 'admin')).allows('DELETE_ENTITY', { resource: FINANCE })).toBe(false);
});

test('an inactive policy grants nothing, and explain says which policy grants or why each does not', () => {
  const off = policy('off', { privileges: ['VIEW_ENTITY_PAGE'], actors: { allUsers: true }, state: 'INACTIVE' });
  const p = set(who('urn:li:corpuser:sam@example.com', ['finance-stewards']), financeStewards, privacy, readers, off);
  expect(p.decide('VIEW_ENTITY_PAGE', { resource: FINANCE })).toMatchObject({ allowed: true, grantedBy: [{ urn: readers.urn }], notGranting: [{ urn: off.urn, refusal: 'it is inactive' }] });
  const refused = p.decide('EDIT_ENTITY_PROPERTIES', { resource: MARKETING, property: DOMAIN });
  expect(refused.allowed).toBe(false);
  expect(refused.notGranting.map((r) => [r.urn, r.refusal])).toEqual([
    [financeStewards.urn, expect.stringMatching(/does not match its resources \(structuredProperties.acme.domain in finance\)/)],
    [privacy.urn, expect.stringMatching(/actors do not include urn:li:corpuser:sam@example.com or the groups finance-stewards/)],
  ]);
});

test('what must be loaded to judge: nothing for URN criteria, values for a value filter, ownership for owners', () => {
  expect(set(who('urn:li:corpuser:x', ['finance-stewards']), financeStewards).needsFor(['EDIT_ENTITY_PROPERTIES'])).toEqual({ aspects: [], values: true });
  expect(set(who('urn:li:corpuser:x'), owners).needsFor(['EDIT_ENTITY'])).toEqual({ aspects: ['ownership'], values: false });
  // A policy that cannot take the principal in costs nothing.
  expect(set(who('urn:li:corpuser:x', ['other']), financeStewards).needsFor(['EDIT_ENTITY_PROPERTIES'])).toEqual({ aspects: [], values: false });
});
