/**
 * Whether the policies grant a principal a privilege on a resource, and why (docs/
 * security.md, "Policies"). One answer for every interface and job: the write gate asks
 * it per entity and property (services/writes/policyGate.ts), reads ask it per entity,
 * searches compile the same rules into the engine's query (readFilter.ts), and `why`
 * shows the reasoning. A token's scope is a ceiling above all of it. Pure.
 */
import type { TokenScope } from '../tokenScope.js';
import { principalKindOf, type PrincipalKind } from '../principal.js';
import { coversEveryProperty, coversProperty, describeCoverage, groupUrn, qualifiedNameOf, type Policy } from './policy.js';
import { privilegeInfo, withinCeiling, type Privilege } from './privileges.js';
import { criterionNeeds, meetsCriterion, mergeNeeds, NO_FACT_NEEDS, type FactNeeds, type ResourceFacts } from './resources.js';

/** Who asks: their principal, the groups their sign-in gave them, and their token's scope. */
export interface Principal {
  readonly actor: string;
  /** Group names, as the groups claim gives them. */
  readonly groups: readonly string[];
  readonly scope: TokenScope;
}

/** The root token's principal: it stays able to do everything its scope allows, whatever the policies say, so an administrator can never lock everyone out. */
export const ROOT_PRINCIPAL = 'urn:li:corpuser:__service_root';

/** Whether policies apply to the principal: not to propgraph's own work nor to the root token (break glass). */
export function policiesApplyTo(actor: string): boolean {
  const kind: PrincipalKind = principalKindOf(actor);
  return kind !== 'system' && actor !== ROOT_PRINCIPAL;
}

/** What a privilege is asked on: an entity (its facts), and for value or definition privileges, the property concerned. */
export interface Target {
  readonly resource?: ResourceFacts;
  /** A property URN, or ALL_PROPERTIES when the act touches every property (deleting an entity's structuredProperties). */
  readonly property?: string;
}

export const ALL_PROPERTIES = '*';

export type ActorMatch = 'direct' | 'owner' | 'no';

export interface PolicyReason {
  readonly urn: string;
  readonly name: string;
  /** Why it grants nothing here; absent: it grants. */
  readonly refusal?: string;
}

export interface Decision {
  readonly allowed: boolean;
  readonly privilege: Privilege;
  /** False when the token's scope is below the privilege's ceiling, whatever the policies say. */
  readonly withinScope: boolean;
  /** Policies do not apply (the system, the root token): the scope alone decides. */
  readonly bypass: boolean;
  /** The policies that grant it. */
  readonly grantedBy: readonly PolicyReason[];
  /** The active policies naming the privilege that do not grant it here, each with why. */
  readonly notGranting: readonly PolicyReason[];
}

function groupUrns(p: Principal): string[] {
  return p.groups.map((g) => groupUrn(g));
}

/** How the policy's actors take in the principal: by name, group or everyone (direct), only as an owner of the resource, or not at all. */
export function actorMatch(policy: Policy, principal: Principal): ActorMatch {
  const a = policy.actors;
  if (a.allUsers || a.users.includes(principal.actor)) return 'direct';
  const groups = groupUrns(principal);
  if ((a.allGroups && groups.length > 0) || a.groups.some((g) => groups.includes(g))) return 'direct';
  return a.resourceOwners ? 'owner' : 'no';
}

/** The principal's owner urns: themselves and their groups (an ownership aspect names either). */
export function ownerUrnsOf(principal: Principal): string[] {
  return [principal.actor, ...groupUrns(principal)];
}

function isOwner(principal: Principal, facts: ResourceFacts): boolean {
  const mine = ownerUrnsOf(principal);
  return facts.owners.some((o) => mine.includes(o));
}

/** Why the policy does not grant `privilege` on the target to the principal; undefined when it does. */
export function refusalOf(policy: Policy, principal: Principal, privilege: Privilege, target: Target): string | undefined {
  if (policy.state !== 'ACTIVE') return 'it is inactive';
  if (!policy.privileges.includes(privilege)) return `it does not grant ${privilege}`;
  const match = actorMatch(policy, principal);
  if (match === 'no') return `its actors do not include ${principal.actor}${principal.groups.length > 0 ? ` or the groups ${principal.groups.join(', ')}` : ''}`;
  if (privilegeInfo(privilege).kind === 'platform') return undefined;
  const facts = target.resource;
  if (match === 'owner' && (!facts || !isOwner(principal, facts))) return `it grants to owners, and ${principal.actor} does not own ${facts?.urn ?? 'the resource'}`;
  const unmet = policy.criteria.find((c) => !facts || !meetsCriterion(c, facts));
  if (unmet) return `${facts?.urn ?? 'no resource'} does not match its resources (${describeCriterion(unmet)})`;
  if (target.property !== undefined && !coversEveryProperty(policy)) {
    if (target.property === ALL_PROPERTIES) return `it covers ${describeCoverage(policy)}, and this touches every property`;
    if (!coversProperty(policy, target.property)) return `it covers ${describeCoverage(policy)}, not ${qualifiedNameOf(target.property)}`;
  }
  return undefined;
}

function describeCriterion(c: Policy['criteria'][number]): string {
  const field = typeof c.field === 'object' ? `structuredProperties.${qualifiedNameOf(c.field.property)}` : c.field;
  return `${field} ${c.condition === 'STARTS_WITH' ? 'starting with' : 'in'} ${c.values.slice(0, 5).join(', ')}${c.values.length > 5 ? ', ...' : ''}`;
}

/**
 * The policies that apply to one principal, kept once per request or plan: those naming
 * them (or their groups, or everyone), and those granting to owners. Deciding against
 * it costs a pass over these few, with no I/O.
 */
export class PrincipalPolicies {
  readonly bypass: boolean;
  /** Active policies whose actors may take in the principal, by privilege. */
  private readonly byPrivilege = new Map<Privilege, Policy[]>();

  constructor(
    readonly principal: Principal,
    readonly all: readonly Policy[],
  ) {
    this.bypass = !policiesApplyTo(principal.actor);
    for (const p of all) {
      if (p.state !== 'ACTIVE' || actorMatch(p, principal) === 'no') continue;
      for (const priv of p.privileges) this.byPrivilege.set(priv, [...(this.byPrivilege.get(priv) ?? []), p]);
    }
  }

  /** Whether the privilege is granted on the target (the scope's ceiling first). */
  allows(privilege: Privilege, target: Target = {}): boolean {
    if (!withinCeiling(this.principal.scope, privilege)) return false;
    if (this.bypass) return true;
    return (this.byPrivilege.get(privilege) ?? []).some((p) => refusalOf(p, this.principal, privilege, target) === undefined);
  }

  /** Whether any policy could grant the privilege somewhere (what a client shows as an action the caller may have). */
  mayHaveAnywhere(privilege: Privilege): boolean {
    if (!withinCeiling(this.principal.scope, privilege)) return false;
    return this.bypass || (this.byPrivilege.get(privilege)?.length ?? 0) > 0;
  }

  /** The policies granting the privilege to the principal in some case, for readFilter.ts. */
  candidates(privilege: Privilege): readonly Policy[] {
    return this.byPrivilege.get(privilege) ?? [];
  }

  /**
   * What must be loaded of an entity to judge these privileges on it: nothing when every
   * candidate grants on URN facts alone (the shipped defaults); the aspects and values
   * their criteria read, and ownership when one grants to owners.
   */
  needsFor(privileges: readonly Privilege[]): FactNeeds {
    if (this.bypass) return NO_FACT_NEEDS;
    const needs: FactNeeds[] = [];
    for (const privilege of privileges) {
      if (privilegeInfo(privilege).kind === 'platform') continue;
      for (const p of this.candidates(privilege)) {
        if (actorMatch(p, this.principal) === 'owner') needs.push({ aspects: ['ownership'], values: false });
        needs.push(...p.criteria.map(criterionNeeds));
      }
    }
    return mergeNeeds(needs);
  }

  /** The whole answer: allowed or not, and which policies grant it or why each does not. */
  decide(privilege: Privilege, target: Target = {}): Decision {
    const withinScope = withinCeiling(this.principal.scope, privilege);
    const naming = this.all.filter((p) => p.privileges.includes(privilege));
    const reasons = naming.map((p) => ({ urn: p.urn, name: p.name, refusal: refusalOf(p, this.principal, privilege, target) }));
    const grantedBy = reasons.filter((r) => r.refusal === undefined).map(({ urn, name }) => ({ urn, name }));
    const notGranting = reasons.filter((r): r is Required<typeof r> => r.refusal !== undefined);
    return { allowed: withinScope && (this.bypass || grantedBy.length > 0), privilege, withinScope, bypass: this.bypass, grantedBy, notGranting };
  }
}
