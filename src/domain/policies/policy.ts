/**
 * A policy (docs/security.md, "Policies"): privileges granted to actors on resources.
 * Stored as DataHub stores it, the `dataHubPolicyInfo` aspect of a `dataHubPolicy`
 * entity, so that policies are written, versioned, audited, backed up and restored like
 * every other aspect, and DataHub's own clients read and write them in DataHub's shape.
 * This module reads that shape strictly (an unknown privilege, field or condition is a
 * 400 naming where it is and how to fix it) and turns it into the form evaluation uses
 * (evaluate.ts). Policies only grant: there is no deny. A resource criterion lists the
 * values it grants on; the properties a value privilege covers may be named either way,
 * those covered or, with NOT_EQUALS, those left out ("every property but acme.pii"),
 * which still grants, on the rest. Pure.
 */
import { ValidationError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { personPrincipal, plainIdProblem } from '../principal.js';
import { entityTypeByGraphql, findEntityType } from '../registry/entityTypes.js';
import { tryParseEntityType } from '../typeUrns.js';
import { tryParseUrn } from '../urn.js';
import { isPrivilege, PRIVILEGE_NAMES, privilegeInfo, type Privilege, type PrivilegeKind } from './privileges.js';

export const POLICY_ENTITY_TYPE = 'dataHubPolicy';
export const POLICY_ASPECT = 'dataHubPolicyInfo';
const POLICY_URN_PREFIX = 'urn:li:dataHubPolicy:';
const CORPUSER = 'urn:li:corpuser:';
const CORPGROUP = 'urn:li:corpGroup:';
const PROPERTY_URN_PREFIX = 'urn:li:structuredProperty:';
export const PROPERTY_FIELD_PREFIX = 'structuredProperties.';

export type PolicyType = 'METADATA' | 'PLATFORM';
export type PolicyState = 'ACTIVE' | 'INACTIVE';

/** Fields a resource criterion may name; a structured property's value is `structuredProperties.<qualifiedName>`. */
export type KeyCriterionField = 'TYPE' | 'URN' | 'PLATFORM' | 'DOMAIN' | 'TAG';
export type CriterionField = KeyCriterionField | { readonly property: string };
export type CriterionCondition = 'EQUALS' | 'STARTS_WITH';

export interface Criterion {
  readonly field: CriterionField;
  /** Normalised: entity type names, URNs, property values as written. Any one matching matches. */
  readonly values: readonly string[];
  readonly condition: CriterionCondition;
}

export interface PolicyActors {
  /** Principals (people and machine tokens), as corpuser URNs. */
  readonly users: readonly string[];
  /** Groups from the sign-in's groups claim, as corpGroup URNs. */
  readonly groups: readonly string[];
  /** The resource's owners (its `ownership` aspect names the actor or one of their groups). */
  readonly resourceOwners: boolean;
  /** Everyone signed in: people and machine tokens. */
  readonly allUsers: boolean;
  /** Everyone in at least one group. */
  readonly allGroups: boolean;
}

export interface Policy {
  readonly urn: string;
  readonly name: string;
  readonly description: string | null;
  readonly type: PolicyType;
  readonly state: PolicyState;
  readonly privileges: readonly Privilege[];
  readonly actors: PolicyActors;
  /** Every criterion must match (AND); no criteria: every resource. */
  readonly criteria: readonly Criterion[];
  /** The structured properties value and definition privileges are limited to (URNs); null: every property. */
  readonly properties: readonly string[] | null;
  /** The structured properties they leave out (URNs; PROPERTY constraints with NOT_EQUALS): every property but these. */
  readonly exceptProperties: readonly string[];
  readonly editable: boolean;
}

/** What a caller sends (DataHub's PolicyUpdateInput / DataHubPolicyInfo), before it is read. */
export type PolicyInput = unknown;

/** The criterion fields a resource filter may name, for messages and the console. */
export const CRITERION_FIELDS = ['TYPE', 'URN', 'PLATFORM', 'DOMAIN', 'TAG', `${PROPERTY_FIELD_PREFIX}<qualifiedName>`] as const;

const FIELD_ALIASES: Readonly<Record<string, KeyCriterionField>> = {
  TYPE: 'TYPE',
  RESOURCE_TYPE: 'TYPE',
  ENTITY_TYPE: 'TYPE',
  URN: 'URN',
  RESOURCE_URN: 'URN',
  ENTITY_URN: 'URN',
  PLATFORM: 'PLATFORM',
  DATA_PLATFORM: 'PLATFORM',
  DOMAIN: 'DOMAIN',
  TAG: 'TAG',
};
const PROPERTY_CONSTRAINT_FIELDS = new Set(['PROPERTY', 'STRUCTURED_PROPERTY']);
const MAX_LIST = 1000;
const MAX_CRITERIA = 20;

export function policyUrn(id: string): string {
  return `${POLICY_URN_PREFIX}${id}`;
}

/** A policy's id (the URN's last part, or the id itself): a plain identifier. */
export function parsePolicyId(value: unknown, field = 'id'): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ValidationError(`${field} is required: a policy id such as finance-stewards, or its urn ${POLICY_URN_PREFIX}finance-stewards`, field);
  const id = value.startsWith(POLICY_URN_PREFIX) ? value.slice(POLICY_URN_PREFIX.length) : value.trim();
  const problem = plainIdProblem(id);
  if (problem) throw new ValidationError(`${field} ${JSON.stringify(id.slice(0, 200))} ${problem}; use letters, digits, dots, dashes and underscores`, field);
  return id;
}

function record(value: unknown, field: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ValidationError(`${field} must be an object`, field);
  return value as Record<string, unknown>;
}

function optionalRecord(value: unknown, field: string): Record<string, unknown> | undefined {
  return value === undefined || value === null ? undefined : record(value, field);
}

function list(value: unknown, field: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ValidationError(`${field} must be a list`, field);
  if (value.length > MAX_LIST) throw new ValidationError(`${field} holds ${value.length} entries, more than the limit of ${MAX_LIST}`, field);
  return value;
}

function text(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string') throw new ValidationError(`${field} must be a string`, field);
  if (value.length > max) throw new ValidationError(`${field} is longer than the limit of ${max} characters`, field);
  return value;
}

function flag(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new ValidationError(`${field} must be true or false`, field);
  return value;
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[], fallback?: T): T {
  if ((value === undefined || value === null) && fallback !== undefined) return fallback;
  const v = typeof value === 'string' ? value.trim().toUpperCase() : value;
  if (!allowed.includes(v as T)) throw new ValidationError(`${field} must be one of ${allowed.join(', ')}`, field);
  return v as T;
}

/** `ana@example.com` or `urn:li:corpuser:ana@example.com`; a machine token by its urn, `urn:li:corpuser:__service_<name>`. */
function userUrn(value: unknown, field: string): string {
  const v = text(value, field, 300).trim();
  if (v.startsWith(CORPUSER)) {
    const id = v.slice(CORPUSER.length);
    if (id === '' || /[\s,()]/.test(id)) throw new ValidationError(`${field} ${JSON.stringify(v)} is not a principal's urn`, field);
    return v;
  }
  const problem = plainIdProblem(v);
  if (problem) throw new ValidationError(`${field} ${JSON.stringify(v.slice(0, 200))} ${problem}; name a person by their id or urn, a machine token by urn:li:corpuser:__service_<name>`, field);
  return personPrincipal(v);
}

/** `stewards` or `urn:li:corpGroup:stewards`: a group as the sign-in's groups claim names it. */
export function groupUrn(value: unknown, field = 'group'): string {
  const v = text(value, field, 300).trim();
  const name = v.startsWith(CORPGROUP) ? v.slice(CORPGROUP.length) : v;
  if (name === '' || /[\u0000-\u001f]/.test(name)) throw new ValidationError(`${field} ${JSON.stringify(v.slice(0, 200))} is not a group name`, field);
  return `${CORPGROUP}${name}`;
}

/** `acme.pii` or `urn:li:structuredProperty:acme.pii`. */
export function propertyUrnOf(value: unknown, field: string): string {
  const v = text(value, field, LIMITS.nameLength).trim();
  const qn = v.startsWith(PROPERTY_URN_PREFIX) ? v.slice(PROPERTY_URN_PREFIX.length) : v;
  if (qn === '' || /\s/.test(qn)) throw new ValidationError(`${field} ${JSON.stringify(v.slice(0, 200))} is not a structured property; name it by qualified name (acme.pii) or urn`, field);
  return `${PROPERTY_URN_PREFIX}${qn}`;
}

function criterionField(value: unknown, field: string): CriterionField {
  const v = text(value, field, LIMITS.nameLength).trim();
  if (v.startsWith(PROPERTY_FIELD_PREFIX)) return { property: propertyUrnOf(v.slice(PROPERTY_FIELD_PREFIX.length), field) };
  const key = FIELD_ALIASES[v.toUpperCase()];
  if (!key) throw new ValidationError(`${field} ${JSON.stringify(v.slice(0, 200))} is not a resource field; use one of ${CRITERION_FIELDS.join(', ')}`, field);
  return key;
}

function entityTypeName(value: string, field: string): string {
  const type = findEntityType(value) ?? entityTypeByGraphql(value.toUpperCase()) ?? tryParseEntityType(value, true);
  if (!type) throw new ValidationError(`${field} ${JSON.stringify(value.slice(0, 200))} is not an entity type; use a name such as dataset or DATASET`, field);
  return type.name;
}

const urnNamed = (kind: string) => (v: string) => (v.startsWith('urn:') ? v : `urn:li:${kind}:${v}`);

function criterionValue(f: CriterionField, condition: CriterionCondition, value: unknown, field: string): string {
  const v = text(value, field, LIMITS.stringValueLength);
  if (typeof f === 'object') return v;
  const t = v.trim();
  if (t === '') throw new ValidationError(`${field} is empty`, field);
  switch (f) {
    case 'TYPE':
      return entityTypeName(t, field);
    case 'URN': {
      if (condition === 'STARTS_WITH') return t;
      const parsed = tryParseUrn(t);
      if (!parsed.ok) throw new ValidationError(`${field} ${JSON.stringify(t.slice(0, 200))} is not a urn: ${parsed.reason}`, field);
      return parsed.urn.value;
    }
    case 'PLATFORM':
      return urnNamed('dataPlatform')(t);
    case 'DOMAIN':
      return urnNamed('domain')(t);
    case 'TAG':
      return urnNamed('tag')(t);
  }
}

function parseCriterion(value: unknown, at: string): Criterion {
  const c = record(value, at);
  const f = criterionField(c.field, `${at}.field`);
  const condition = oneOf(c.condition, `${at}.condition`, ['EQUALS', 'STARTS_WITH', 'NOT_EQUALS'] as const, 'EQUALS');
  if (condition === 'NOT_EQUALS') {
    throw new ValidationError(`${at}.condition NOT_EQUALS is not supported on resources: policies only grant, so list the values a policy grants on (NOT_EQUALS names the properties left out, in privilegeConstraints)`, `${at}.condition`);
  }
  if (condition === 'STARTS_WITH' && f !== 'URN') throw new ValidationError(`${at}.condition STARTS_WITH applies to URN only; list the values of ${fieldName(f)}`, `${at}.condition`);
  const raw = list(c.values, `${at}.values`);
  if (raw.length === 0) throw new ValidationError(`${at}.values is empty: a criterion matches when the resource has one of its values; leave the criterion out to match every resource`, `${at}.values`);
  const values = [...new Set(raw.map((v, i) => criterionValue(f, condition, v, `${at}.values[${i}]`)))];
  return { field: f, values, condition };
}

export function fieldName(f: CriterionField): string {
  return typeof f === 'object' ? `${PROPERTY_FIELD_PREFIX}${f.property.slice(PROPERTY_URN_PREFIX.length)}` : f;
}

/** The properties value and definition privileges cover: those named (null: every one), but those left out. */
interface PropertyCoverage {
  readonly properties: string[] | null;
  readonly exceptProperties: string[];
}

const EVERY_PROPERTY: PropertyCoverage = { properties: null, exceptProperties: [] };

function parseResources(value: unknown, at: string): { criteria: Criterion[]; coverage: PropertyCoverage } {
  const r = optionalRecord(value, at);
  if (!r) return { criteria: [], coverage: EVERY_PROPERTY };
  const criteria: Criterion[] = [];
  // DataHub's older form: `type` and `resources` beside (or instead of) the filter.
  if (r.type !== undefined && r.type !== null && r.type !== '') criteria.push({ field: 'TYPE', values: [entityTypeName(text(r.type, `${at}.type`, 200), `${at}.type`)], condition: 'EQUALS' });
  const urns = list(r.resources, `${at}.resources`);
  if (urns.length > 0) criteria.push({ field: 'URN', values: urns.map((u, i) => criterionValue('URN', 'EQUALS', u, `${at}.resources[${i}]`)), condition: 'EQUALS' });
  const all = flag(r.allResources, `${at}.allResources`);
  const filter = optionalRecord(r.filter, `${at}.filter`);
  const given = list(filter?.criteria, `${at}.filter.criteria`);
  if (given.length > MAX_CRITERIA) throw new ValidationError(`${at}.filter.criteria holds ${given.length} criteria, more than the limit of ${MAX_CRITERIA}`, `${at}.filter.criteria`);
  criteria.push(...given.map((c, i) => parseCriterion(c, `${at}.filter.criteria[${i}]`)));
  if (all && criteria.length > 0) throw new ValidationError(`${at}.allResources is true but the resources are also filtered; leave out one or the other`, `${at}.allResources`);
  return { criteria, coverage: parseConstraints(r.privilegeConstraints, `${at}.privilegeConstraints`) };
}

/**
 * The properties a value or definition privilege covers: `PROPERTY` criteria of the
 * privilege constraints, EQUALS naming properties covered, NOT_EQUALS properties left out.
 */
function parseConstraints(value: unknown, at: string): PropertyCoverage {
  const c = optionalRecord(value, at);
  if (!c) return EVERY_PROPERTY;
  const given = list(c.criteria, `${at}.criteria`);
  if (given.length === 0) return EVERY_PROPERTY;
  const only = new Set<string>();
  const except = new Set<string>();
  given.forEach((raw, i) => {
    const x = record(raw, `${at}.criteria[${i}]`);
    const field = text(x.field, `${at}.criteria[${i}].field`, 100).trim().toUpperCase();
    if (!PROPERTY_CONSTRAINT_FIELDS.has(field)) throw new ValidationError(`${at}.criteria[${i}].field must be PROPERTY (the structured properties the privileges cover)`, `${at}.criteria[${i}].field`);
    const condition = oneOf(x.condition, `${at}.criteria[${i}].condition`, ['EQUALS', 'NOT_EQUALS'] as const, 'EQUALS');
    const values = list(x.values, `${at}.criteria[${i}].values`);
    if (values.length === 0) {
      throw new ValidationError(`${at}.criteria[${i}].values is empty; name the properties covered (EQUALS) or left out (NOT_EQUALS), or leave the constraint out to cover every property`, `${at}.criteria[${i}].values`);
    }
    values.forEach((v, k) => (condition === 'EQUALS' ? only : except).add(propertyUrnOf(v, `${at}.criteria[${i}].values[${k}]`)));
  });
  // Several EQUALS criteria narrow nothing further: each names properties covered; those left out are left out of them.
  return { properties: only.size > 0 ? [...only] : null, exceptProperties: [...except] };
}

/** Whether the policy's constraints cover the property (a URN); every property for a policy without them. */
export function coversProperty(policy: Pick<Policy, 'properties' | 'exceptProperties'>, property: string): boolean {
  return (policy.properties === null || policy.properties.includes(property)) && !policy.exceptProperties.includes(property);
}

/** Whether the policy covers every property (no constraint, or none left out). */
export function coversEveryProperty(policy: Pick<Policy, 'properties' | 'exceptProperties'>): boolean {
  return policy.properties === null && policy.exceptProperties.length === 0;
}

/** The properties a policy covers, in words: `only the properties acme.tier, acme.domain`, or `every property but acme.pii`. */
export function describeCoverage(policy: Pick<Policy, 'properties' | 'exceptProperties'>): string {
  const only = policy.properties === null ? 'every property' : `only the properties ${policy.properties.map(qualifiedNameOf).join(', ')}`;
  return policy.exceptProperties.length === 0 ? only : `${only} but ${policy.exceptProperties.map(qualifiedNameOf).join(', ')}`;
}

function parseActors(value: unknown, at: string): PolicyActors {
  const a = record(value ?? {}, at);
  const actors = {
    users: [...new Set(list(a.users, `${at}.users`).map((u, i) => userUrn(u, `${at}.users[${i}]`)))],
    groups: [...new Set(list(a.groups, `${at}.groups`).map((g, i) => groupUrn(g, `${at}.groups[${i}]`)))],
    resourceOwners: flag(a.resourceOwners, `${at}.resourceOwners`),
    allUsers: flag(a.allUsers, `${at}.allUsers`),
    allGroups: flag(a.allGroups, `${at}.allGroups`),
  };
  if (!actors.allUsers && !actors.allGroups && !actors.resourceOwners && actors.users.length === 0 && actors.groups.length === 0) {
    throw new ValidationError(`${at} names nobody: list users or groups, or set resourceOwners, allUsers or allGroups`, at);
  }
  return actors;
}

function parsePrivileges(value: unknown, at: string, type: PolicyType): Privilege[] {
  const raw = list(value, at);
  if (raw.length === 0) throw new ValidationError(`${at} is empty: a policy grants at least one of ${PRIVILEGE_NAMES.join(', ')}`, at);
  const want: PrivilegeKind = type === 'PLATFORM' ? 'platform' : 'metadata';
  return [
    ...new Set(
      raw.map((p, i) => {
        const name = typeof p === 'string' ? p.trim().toUpperCase() : p;
        if (typeof name !== 'string' || !isPrivilege(name)) throw new ValidationError(`${at}[${i}] ${JSON.stringify(p)} is not a privilege; use one of ${PRIVILEGE_NAMES.join(', ')}`, `${at}[${i}]`);
        if (privilegeInfo(name).kind !== want) {
          throw new ValidationError(`${at}[${i}] ${name} is a ${privilegeInfo(name).kind} privilege; grant it in a ${want === 'platform' ? 'METADATA' : 'PLATFORM'} policy, not a ${type} one`, `${at}[${i}]`);
        }
        return name;
      }),
    ),
  ];
}

/**
 * Reads a policy as DataHub's dataHubPolicyInfo (or GraphQL's PolicyUpdateInput, whose
 * `name` is the info's `displayName` and whose `policyConstraints` are its resources'
 * `privilegeConstraints`); `urn` names it. Throws ValidationError naming the field.
 */
export function parsePolicy(urn: string, input: PolicyInput, at = 'policy'): Policy {
  const p = record(input, at);
  const prefix = (f: string) => (at === '' ? f : `${at}.${f}`);
  const type = oneOf(p.type, prefix('type'), ['METADATA', 'PLATFORM'] as const, 'METADATA');
  const state = oneOf(p.state, prefix('state'), ['ACTIVE', 'INACTIVE'] as const, 'ACTIVE');
  const rawName = p.displayName ?? p.name;
  if (typeof rawName !== 'string' || rawName.trim() === '') throw new ValidationError(`${prefix('displayName')} is required: a name people read in the policy list`, prefix('displayName'));
  const name = text(rawName, prefix('displayName'), LIMITS.nameLength).trim();
  const description = p.description === undefined || p.description === null ? null : text(p.description, prefix('description'), LIMITS.descriptionLength);
  const privileges = parsePrivileges(p.privileges, prefix('privileges'), type);
  const resources = parseResources(p.resources, prefix('resources'));
  const constraints = p.policyConstraints === undefined ? resources.coverage : parseConstraints(p.policyConstraints, prefix('policyConstraints'));
  if (type === 'PLATFORM' && (resources.criteria.length > 0 || !coversEveryProperty(constraints))) {
    throw new ValidationError(`${prefix('resources')}: a PLATFORM policy grants on nothing in particular; leave its resources out, or make it a METADATA policy`, prefix('resources'));
  }
  return {
    urn,
    name,
    description,
    type,
    state,
    privileges,
    actors: parseActors(p.actors, prefix('actors')),
    criteria: resources.criteria,
    properties: constraints.properties,
    exceptProperties: constraints.exceptProperties,
    editable: p.editable === undefined || p.editable === null ? true : flag(p.editable, prefix('editable')),
  };
}

/** The policy as it is stored: DataHub's dataHubPolicyInfo, normalised. */
export function policyInfoOf(policy: Policy): Record<string, unknown> {
  const criteria = policy.criteria.map((c) => ({ field: fieldName(c.field), values: [...c.values], condition: c.condition }));
  return {
    displayName: policy.name,
    ...(policy.description !== null ? { description: policy.description } : {}),
    type: policy.type,
    state: policy.state,
    privileges: [...policy.privileges],
    actors: { users: [...policy.actors.users], groups: [...policy.actors.groups], resourceOwners: policy.actors.resourceOwners, allUsers: policy.actors.allUsers, allGroups: policy.actors.allGroups },
    resources: {
      allResources: criteria.length === 0,
      ...(criteria.length > 0 ? { filter: { criteria } } : {}),
      ...(coversEveryProperty(policy) ? {} : { privilegeConstraints: { criteria: constraintCriteria(policy) } }),
    },
    editable: policy.editable,
  };
}

/** A policy's PROPERTY constraints as DataHub's criteria: those covered (EQUALS), those left out (NOT_EQUALS). */
export function constraintCriteria(policy: Pick<Policy, 'properties' | 'exceptProperties'>): Array<{ field: 'PROPERTY'; values: string[]; condition: 'EQUALS' | 'NOT_EQUALS' }> {
  return [
    ...(policy.properties !== null ? [{ field: 'PROPERTY' as const, values: [...policy.properties], condition: 'EQUALS' as const }] : []),
    ...(policy.exceptProperties.length > 0 ? [{ field: 'PROPERTY' as const, values: [...policy.exceptProperties], condition: 'NOT_EQUALS' as const }] : []),
  ];
}

/** The qualified name of a property urn (the urn's id). */
export function qualifiedNameOf(propertyUrn: string): string {
  return propertyUrn.startsWith(PROPERTY_URN_PREFIX) ? propertyUrn.slice(PROPERTY_URN_PREFIX.length) : propertyUrn;
}
