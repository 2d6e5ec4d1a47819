/**
 * The access service (accessService.ts): the caller's privileges, an entity's, and why,
 * answered from the policies in force (accessPolicies.ts) by the evaluation every write
 * and read uses (domain/policies/evaluate.ts), on the entities as they stand.
 */
import { SCOPES, type TokenScope } from '../domain/accessToken.js';
import { ValidationError } from '../domain/errors.js';
import { actorMatch, refusalOf, type Principal } from '../domain/policies/evaluate.js';
import { EVERYONE, EVERYONE_IN_A_GROUP, OWNERS } from '../domain/policies/policyDiff.js';
import { propertyUrnOf } from '../domain/policies/policy.js';
import { parsePrivilege, privilegeInfo, type Privilege } from '../domain/policies/privileges.js';
import { FACT_ASPECTS, type ResourceFacts } from '../domain/policies/resources.js';
import { displayNameOf, personPrincipal, principalKindOf } from '../domain/principal.js';
import { parseUrn } from '../domain/urn.js';
import { groupsOfLatestToken, liveScopesOf } from '../store/accessTokens.js';
import type { Db } from '../store/database.js';
import type { AccessPolicies } from './accessPolicies.js';
import type { AccessExplanation, AccessService, EntityPrivileges, ExplainInput, Grantee, Privileges, WhoCould } from './accessService.js';
import type { Caller } from './caller.js';
import { entityPrivilegesOf, privilegesOf } from './privileges.js';

export interface ExplainDeps {
  readonly db: Db;
  readonly access: AccessPolicies;
}

const ALL_FACTS = { aspects: Object.values(FACT_ASPECTS), values: true };

function principalUrn(value: string): string {
  return value.startsWith('urn:li:corpuser:') ? value : personPrincipal(value);
}

function scopeOf(value: string, field = 'scope'): TokenScope {
  const s = value.toLowerCase();
  if (!(SCOPES as readonly string[]).includes(s)) throw new ValidationError(`${field} must be one of ${SCOPES.join(', ')}`, field);
  return s as TokenScope;
}

export class DefaultAccessService implements AccessService {
  constructor(private readonly deps: ExplainDeps) {}

  async privileges(caller: Caller): Promise<Privileges> {
    return privilegesOf(caller, await this.deps.access.forCaller(caller));
  }

  async readable(caller: Caller, urns: readonly string[]): Promise<Set<string>> {
    return this.deps.access.readable(caller, urns.map((u) => parseUrn(u)));
  }

  async requireRead(caller: Caller, urns: readonly string[]): Promise<void> {
    await this.deps.access.requireRead(caller, urns.map((u) => parseUrn(u)));
  }

  async entityPrivileges(caller: Caller, urnValue: string): Promise<EntityPrivileges> {
    const urn = parseUrn(urnValue);
    const policies = await this.deps.access.forCaller(caller);
    const resource = (await this.deps.access.factsOf([urn], policies.bypass ? { aspects: [], values: false } : ALL_FACTS)).get(urn.value)!;
    return entityPrivilegesOf(policies, resource);
  }

  /** Whom the question is about, with their groups and scope; another principal needs MANAGE_POLICIES. */
  private async principalFor(caller: Caller, input: ExplainInput): Promise<{ principal: Principal; basis: AccessExplanation['basis'] }> {
    const actor = input.principal ? principalUrn(input.principal.trim()) : caller.actor;
    if (actor === caller.actor) {
      return { principal: { actor, groups: input.groups ?? caller.groups ?? [], scope: input.scope ? scopeOf(input.scope) : caller.scope }, basis: input.groups || input.scope ? 'given' : 'caller' };
    }
    await this.deps.access.requirePlatform(caller, 'MANAGE_POLICIES', `Explaining the access of ${actor}`);
    const groups = input.groups ?? (await groupsOfLatestToken(this.deps.db, actor)) ?? [];
    const known = input.scope ? scopeOf(input.scope) : await this.largestScope(actor);
    const basis = input.groups || input.scope ? 'given' : known ? 'tokens' : 'none';
    return { principal: { actor, groups, scope: known ?? 'admin' }, basis };
  }

  /** The largest scope of the principal's live tokens; undefined when they have none. */
  private async largestScope(actor: string): Promise<TokenScope | undefined> {
    const scopes = await liveScopesOf(this.deps.db, { owner: actor, machineName: principalKindOf(actor) === 'machine' ? displayNameOf(actor) : null });
    return [...SCOPES].reverse().find((s) => scopes.includes(s));
  }

  /**
   * The entity asked about, with its facts. An answer tells something of the entity (which
   * criteria it meets, its owners): the caller must be able to read it, or manage policies.
   */
  private async target(caller: Caller, privilege: Privilege, input: { urn?: string | null; property?: string | null }): Promise<{ resource?: ResourceFacts; property?: string }> {
    if (privilegeInfo(privilege).kind === 'platform') return {};
    if (!input.urn) throw new ValidationError(`urn is required: ${privilege} is granted on entities; name the entity`, 'urn');
    const urn = parseUrn(input.urn);
    if (!(await this.deps.access.forCaller(caller)).allows('MANAGE_POLICIES')) await this.deps.access.requireRead(caller, [urn], 'Asking about');
    const resource = (await this.deps.access.factsOf([urn], ALL_FACTS)).get(urn.value)!;
    const property = input.property ? propertyUrnOf(input.property, 'property') : undefined;
    return { resource, ...(property !== undefined ? { property } : {}) };
  }

  async explain(caller: Caller, input: ExplainInput): Promise<AccessExplanation> {
    const privilege = parsePrivilege(input.privilege);
    const { principal, basis } = await this.principalFor(caller, input);
    const target = await this.target(caller, privilege, input);
    const decision = (await this.deps.access.forPrincipal(principal)).decide(privilege, target);
    const on = target.resource ? ` on ${target.resource.urn}` : '';
    const of = target.property ? ` for ${target.property}` : '';
    const summary = !decision.withinScope
      ? `${principal.actor} may not: ${privilege} needs a token with ${privilegeInfo(privilege).ceiling} scope, and theirs has ${principal.scope} scope`
      : decision.bypass
        ? `${principal.actor} may: policies do not apply to it (propgraph's own work, or the root token); its scope decides`
        : decision.allowed
          ? `${principal.actor} may ${privilege}${on}${of}: granted by ${decision.grantedBy.map((g) => g.name).join(', ')}`
          : `${principal.actor} may not ${privilege}${on}${of}: no active policy grants it to them`;
    return {
      principal: principal.actor,
      groups: principal.groups,
      scope: principal.scope,
      basis,
      privilege,
      resource: target.resource?.urn ?? null,
      property: target.property ?? null,
      allowed: decision.allowed,
      withinScope: decision.withinScope,
      bypass: decision.bypass,
      grantedBy: decision.grantedBy,
      notGranting: decision.notGranting,
      summary,
    };
  }

  /** Who could: every active policy that grants the privilege on this entity (and property), with the actors it grants to. */
  async whoCould(caller: Caller, input: { privilege: string; urn?: string | null; property?: string | null }): Promise<WhoCould> {
    const privilege = parsePrivilege(input.privilege);
    const target = await this.target(caller, privilege, input);
    const policies = (await this.deps.access.current()).policies;
    // Judged for an owner of the resource who is named by every policy: what remains is whether the policy covers the resource.
    const anyone: Principal = { actor: target.resource?.owners[0] ?? 'urn:li:corpuser:anyone', groups: [], scope: 'admin' };
    const grantees: Grantee[] = [];
    let ownersGranted = false;
    for (const p of policies) {
      if (p.state !== 'ACTIVE' || !p.privileges.includes(privilege)) continue;
      const everyone = { ...p, actors: { ...p.actors, allUsers: true } };
      if (refusalOf(everyone, anyone, privilege, target) !== undefined) continue;
      const actors = [...(p.actors.allUsers ? [EVERYONE] : []), ...(p.actors.allGroups ? [EVERYONE_IN_A_GROUP] : []), ...p.actors.users, ...p.actors.groups];
      if (p.actors.resourceOwners && target.resource && target.resource.owners.length > 0 && actorMatch(p, anyone) !== 'no') {
        actors.push(OWNERS);
        ownersGranted = true;
      }
      if (actors.length > 0) grantees.push({ policy: { urn: p.urn, name: p.name }, actors });
    }
    return {
      privilege,
      resource: target.resource?.urn ?? null,
      property: target.property ?? null,
      scopeNeeded: privilegeInfo(privilege).ceiling,
      grantees,
      owners: ownersGranted ? [...(target.resource?.owners ?? [])] : [],
    };
  }
}
