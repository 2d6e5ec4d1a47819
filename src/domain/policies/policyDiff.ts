/**
 * Policies as code (docs/cli.md, "propgraph policies apply"): what applying a file of
 * policies changes, policy by policy, and for whom: which actors gain or lose which
 * privileges, and where a policy's resources change. `--dry-run` shows exactly this;
 * applying writes it. Pure.
 */
import { coversEveryProperty, describeCoverage, fieldName, type Policy } from './policy.js';
import type { Privilege } from './privileges.js';

export type PolicyChangeKind = 'create' | 'update' | 'unchanged' | 'delete' | 'deactivate';

/** What one actor gains and loses by a change. */
export interface ActorChange {
  /** A principal or group urn, or `owners of the resource`, `everyone signed in`, `everyone in a group`. */
  readonly actor: string;
  readonly gains: readonly Privilege[];
  readonly loses: readonly Privilege[];
}

export interface PolicyChange {
  readonly urn: string;
  readonly name: string;
  readonly change: PolicyChangeKind;
  readonly forWhom: readonly ActorChange[];
  /** The resources before and after, when they differ (both described in words). */
  readonly resources?: { readonly before: string; readonly after: string };
}

/** What is in force now, and whether its URN is a shipped default's (deleting it would bring the default back: it is deactivated instead). */
export interface CurrentPolicy {
  readonly policy: Policy;
  readonly shipped: boolean;
}

export const OWNERS = 'owners of the resource';
export const EVERYONE = 'everyone signed in';
export const EVERYONE_IN_A_GROUP = 'everyone in a group';

/** The actors a policy names, as labels. */
function actorsOf(p: Policy): string[] {
  return [...(p.actors.allUsers ? [EVERYONE] : []), ...(p.actors.allGroups ? [EVERYONE_IN_A_GROUP] : []), ...(p.actors.resourceOwners ? [OWNERS] : []), ...p.actors.users, ...p.actors.groups];
}

/** The privileges a policy grants an actor label (none while inactive). */
function grants(p: Policy | null, actor: string): Set<Privilege> {
  if (!p || p.state !== 'ACTIVE' || !actorsOf(p).includes(actor)) return new Set();
  return new Set(p.privileges);
}

/** A policy's resources in words: `every resource`, or its criteria and the properties covered. */
export function describeResources(p: Policy): string {
  const criteria = p.criteria.map((c) => `${fieldName(c.field)} ${c.condition === 'STARTS_WITH' ? 'starts with' : 'is'} ${c.values.join(' or ')}`);
  const where = criteria.length === 0 ? 'every resource' : criteria.join(' and ');
  return coversEveryProperty(p) ? where : `${where}; ${describeCoverage(p)}`;
}

function sameGrant(a: Policy, b: Policy): boolean {
  const strip = (p: Policy) => JSON.stringify({ ...p, name: '', description: null, editable: true });
  return strip(a) === strip(b);
}

function same(a: Policy, b: Policy): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function changeOf(urn: string, name: string, change: PolicyChangeKind, before: Policy | null, after: Policy | null): PolicyChange {
  const actors = [...new Set([...(before ? actorsOf(before) : []), ...(after ? actorsOf(after) : [])])];
  const forWhom = actors
    .map((actor) => {
      const was = grants(before, actor);
      const now = grants(after, actor);
      return { actor, gains: [...now].filter((p) => !was.has(p)), loses: [...was].filter((p) => !now.has(p)) };
    })
    .filter((a) => a.gains.length > 0 || a.loses.length > 0);
  const resourcesMoved = before && after && describeResources(before) !== describeResources(after);
  return { urn, name, change, forWhom, ...(resourcesMoved ? { resources: { before: describeResources(before), after: describeResources(after) } } : {}) };
}

/**
 * What applying `desired` to `current` changes. Policies the file names are created or
 * updated; with `prune`, stored policies it does not name are deleted and shipped
 * defaults it does not name are turned off (stored INACTIVE), so that the file is then
 * exactly what is in force.
 */
export function diffPolicies(current: readonly CurrentPolicy[], desired: readonly Policy[], prune: boolean): PolicyChange[] {
  const now = new Map(current.map((c) => [c.policy.urn, c]));
  const wanted = new Set(desired.map((p) => p.urn));
  const changes: PolicyChange[] = desired.map((p) => {
    const was = now.get(p.urn);
    if (!was) return changeOf(p.urn, p.name, 'create', null, p);
    const kind: PolicyChangeKind = same(was.policy, p) ? 'unchanged' : 'update';
    return { ...changeOf(p.urn, p.name, kind, was.policy, p), ...(kind === 'update' && sameGrant(was.policy, p) ? { forWhom: [] } : {}) };
  });
  if (prune) {
    for (const c of current) {
      if (wanted.has(c.policy.urn)) continue;
      if (!c.shipped) changes.push(changeOf(c.policy.urn, c.policy.name, 'delete', c.policy, null));
      else if (c.policy.state === 'ACTIVE') changes.push(changeOf(c.policy.urn, c.policy.name, 'deactivate', c.policy, { ...c.policy, state: 'INACTIVE' }));
    }
  }
  return changes;
}
