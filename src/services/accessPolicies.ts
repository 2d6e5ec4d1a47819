/**
 * The policies in force (docs/security.md, "Policies"), as every service asks them: the
 * stored policies (store/policies.ts) over the shipped defaults (domain/policies/
 * defaults.ts: a default stays in force until a stored policy of the same URN replaces
 * it), cached per process and checked against the policies' change counter on each use,
 * so a change committed anywhere is in force for the next request everywhere. The
 * decisions themselves are domain/policies/evaluate.ts's; this module loads what they
 * are judged on: the policies, and the facts of the entities asked about (one read for
 * many entities).
 */
import { ForbiddenError } from '../domain/errors.js';
import { DEFAULT_POLICIES } from '../domain/policies/defaults.js';
import { ALL_PROPERTIES, PrincipalPolicies, type Principal, type Target } from '../domain/policies/evaluate.js';
import { parsePolicy, qualifiedNameOf, type Policy } from '../domain/policies/policy.js';
import type { Privilege } from '../domain/policies/privileges.js';
import { readFilter } from '../domain/policies/readFilter.js';
import { resourceFactsOf, type FactNeeds, type ResourceFacts } from '../domain/policies/resources.js';
import { visibleValuesOf } from '../domain/policies/writeAsks.js';
import type { FilterNode } from '../domain/searchFilter.js';
import { parentUrnOf, type Urn } from '../domain/urn.js';
import type { Logger } from '../platform/logger.js';
import type { EntityPageReader } from '../store/aspects.js';
import type { Db } from '../store/database.js';
import { loadStoredPolicies, type PolicyEpochReader, type StoredPolicy } from '../store/policies.js';
import type { Caller, RequestScope } from './caller.js';

/** A policy in force, with where it comes from. */
export interface PolicyInForce {
  readonly policy: Policy;
  /** `default`: shipped, never stored; `stored`: written by someone (replacing a default of the same URN, if any). */
  readonly origin: 'default' | 'stored';
  readonly lastModified: { readonly time: number; readonly actor: string } | null;
}

export interface PolicySnapshot {
  readonly epoch: bigint;
  readonly policies: readonly Policy[];
  readonly entries: readonly PolicyInForce[];
}

export interface AccessPoliciesDeps {
  readonly db: Db;
  readonly epoch: PolicyEpochReader;
  readonly readEntityPage: EntityPageReader;
  readonly log: Logger;
}

/** The principal a caller acts as, for the policies. */
export function principalOf(caller: Caller): Principal {
  return { actor: caller.actor, groups: caller.groups ?? [], scope: caller.scope };
}

/** A refusal by the policies: names the privilege missing, the resource, and for values the property. */
export class PrivilegeRefusal extends ForbiddenError {
  constructor(what: string, privilege: Privilege, principal: Principal, target: Target) {
    const on = target.resource ? ` on ${target.resource.urn}` : '';
    const property = target.property === undefined ? '' : target.property === ALL_PROPERTIES ? ' for every structured property' : ` for ${qualifiedNameOf(target.property)}`;
    const groups = principal.groups.length > 0 ? ` (groups ${principal.groups.slice(0, 20).join(', ')})` : '';
    super(`${what} needs the ${privilege} privilege${on}${property}, and no active policy grants it to ${principal.actor}${groups}; ask an administrator, or see why with propgraph access explain`);
    Object.defineProperty(this, 'details', {
      value: { privilege, ...(target.resource ? { resource: target.resource.urn } : {}), ...(target.property !== undefined ? { property: target.property } : {}), principal: principal.actor },
      enumerable: true,
    });
  }

  override get reason(): string {
    return 'MISSING_PRIVILEGE';
  }
}

/** Principals whose policies are kept between requests, per snapshot (a busy server sees few distinct callers). */
const PRINCIPALS_KEPT = 1000;

export class AccessPolicies {
  private snapshot: PolicySnapshot | null = null;
  private loading: Promise<PolicySnapshot> | null = null;
  /** The policies as they apply to each principal seen, for the snapshot they were made of. */
  private principals: { snapshot: PolicySnapshot | null; byKey: Map<string, PrincipalPolicies> } = { snapshot: null, byKey: new Map() };
  /** Each principal's read filter, made once. */
  private readonly readFilters = new WeakMap<PrincipalPolicies, FilterNode>();
  /**
   * The policies each request's reads are judged on: the counter read once, at its first
   * check, rather than once per check (DataHub's app's search page asks the privileges of
   * every result: 15 reads of the counter for one request). A change committed before the
   * request is in force for all of it, and all of it sees one set of policies.
   */
  private readonly requests = new WeakMap<RequestScope, Promise<PolicySnapshot>>();

  constructor(private readonly deps: AccessPoliciesDeps) {}

  /** The policies in force now: the cached copy while the counter has not moved, else read again. */
  async current(): Promise<PolicySnapshot> {
    const epoch = await this.deps.epoch();
    if (this.snapshot?.epoch === epoch) return this.snapshot;
    this.loading ??= this.load(epoch).finally(() => (this.loading = null));
    const loaded = await this.loading;
    // A load that started before a later change is still at least as new as the counter read here.
    return loaded.epoch >= epoch ? loaded : this.current();
  }

  private async load(epoch: bigint): Promise<PolicySnapshot> {
    // The counter first: a change racing the read makes the copy stale at once, never wrongly current.
    const stored = await loadStoredPolicies(this.deps.db);
    const snapshot = { epoch, ...this.inForce(stored) };
    if (!this.snapshot || this.snapshot.epoch <= epoch) this.snapshot = snapshot;
    return snapshot;
  }

  private inForce(stored: readonly StoredPolicy[]): { policies: Policy[]; entries: PolicyInForce[] } {
    const entries: PolicyInForce[] = [];
    const storedUrns = new Set<string>();
    for (const s of stored) {
      storedUrns.add(s.urn);
      try {
        entries.push({ policy: parsePolicy(s.urn, s.info), origin: 'stored', lastModified: { time: s.createdOn.getTime(), actor: s.createdBy } });
      } catch (err) {
        // Written before it was read strictly (a DataHub import): it grants nothing, and says so.
        this.deps.log.warn({ policy: s.urn, err: (err as Error).message }, 'stored policy is not valid and grants nothing');
      }
    }
    for (const d of DEFAULT_POLICIES) if (!storedUrns.has(d.urn)) entries.push({ policy: d, origin: 'default', lastModified: null });
    entries.sort((a, b) => (a.policy.urn < b.policy.urn ? -1 : a.policy.urn > b.policy.urn ? 1 : 0));
    return { policies: entries.map((e) => e.policy), entries };
  }

  /** The policies as they apply to the caller: for a request, those its first check found. */
  async forCaller(caller: Caller): Promise<PrincipalPolicies> {
    return this.principalIn(await this.snapshotFor(caller), principalOf(caller));
  }

  /**
   * The policies a write is decided on: read now, whatever the request read before; and
   * the request's next check reads them again, so that a request that changes the
   * policies is judged on the change from then on.
   */
  async forWrite(caller: Caller): Promise<PrincipalPolicies> {
    if (caller.request) this.requests.delete(caller.request);
    return this.principalIn(await this.current(), principalOf(caller));
  }

  private snapshotFor(caller: Caller): Promise<PolicySnapshot> {
    const request = caller.request;
    if (!request) return this.current();
    let pinned = this.requests.get(request);
    if (!pinned) {
      pinned = this.current();
      this.requests.set(request, pinned);
      // A failed read (the database away) is not kept: the next check tries again.
      pinned.catch(() => this.requests.delete(request));
    }
    return pinned;
  }

  /** The policies as they apply to any principal (explain, "who could"); made once per principal and snapshot. */
  async forPrincipal(principal: Principal): Promise<PrincipalPolicies> {
    return this.principalIn(await this.current(), principal);
  }

  private principalIn(snapshot: PolicySnapshot, principal: Principal): PrincipalPolicies {
    if (this.principals.snapshot !== snapshot) this.principals = { snapshot, byKey: new Map() };
    const key = `${principal.actor}\n${principal.scope}\n${principal.groups.join('\n')}`;
    let found = this.principals.byKey.get(key);
    if (!found) {
      if (this.principals.byKey.size >= PRINCIPALS_KEPT) this.principals.byKey.clear();
      found = new PrincipalPolicies(principal, snapshot.policies);
      this.principals.byKey.set(key, found);
    }
    return found;
  }

  /**
   * The facts of the entities, read as `needs` says (one read for all of them); an entity
   * that does not exist is known by its URN alone. With no needs, nothing is read.
   */
  async factsOf(urns: readonly Urn[], needs: FactNeeds): Promise<Map<string, ResourceFacts>> {
    const out = new Map<string, ResourceFacts>();
    if (urns.length === 0) return out;
    const read = needs.aspects.length > 0 || needs.values;
    const page = read ? await this.deps.readEntityPage(urns.map((u) => ({ urn: u.value, parent: parentUrnOf(u), values: needs.values })), needs.aspects) : new Map();
    for (const urn of urns) {
      const row = page.get(urn.value);
      const aspects = new Map([...(row?.aspects ?? new Map()).entries()].map(([name, a]) => [name, a.metadata] as const));
      out.set(urn.value, resourceFactsOf(urn, aspects, row ? visibleValuesOf(urn, row) : new Map()));
    }
    return out;
  }

  /** Which filter a search runs under for the caller: ALL unless policies restrict what they read. */
  async readFilterOf(caller: Caller): Promise<FilterNode> {
    return this.readFilterIn(await this.forCaller(caller));
  }

  private readFilterIn(policies: PrincipalPolicies): FilterNode {
    let filter = this.readFilters.get(policies);
    if (!filter) this.readFilters.set(policies, (filter = readFilter(policies)));
    return filter;
  }

  /**
   * Runs `work` under the caller's read filter, as `readFilterOf` would give it, without
   * waiting for the policies' counter first: the filter of the cached policies runs at
   * once, beside the read of the counter, and when the counter says they changed the
   * work runs again under the new filter (its first answer is dropped). So a change
   * committed before the request is in force for it, as for every request, and a search
   * does not wait a database round trip before asking the engine. The work must only read.
   */
  async withReadFilter<T>(caller: Caller, work: (readable: FilterNode) => Promise<T>): Promise<T> {
    const fresh = this.readFilterOf(caller);
    const cached = this.snapshot ? this.readFilterIn(this.principalIn(this.snapshot, principalOf(caller))) : undefined;
    if (cached === undefined) return work(await fresh);
    const outcome = work(cached).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    const current = await fresh;
    if (current !== cached) return work(current);
    const settled = await outcome;
    if (!settled.ok) throw settled.error;
    return settled.value;
  }

  /** The URNs among `urns` the caller may read. */
  async readable(caller: Caller, urns: readonly Urn[]): Promise<Set<string>> {
    const policies = await this.forCaller(caller);
    // Unrestricted readers (the shipped defaults) are answered without the facts of each entity:
    // a history page of 10,000 entries spent 20 ms of one turn of the event loop on them.
    if (policies.bypass || (await this.readFilterOf(caller)).kind === 'all') return new Set(urns.map((u) => u.value));
    const facts = await this.factsOf(urns, policies.needsFor(['VIEW_ENTITY_PAGE']));
    return new Set(urns.filter((u) => policies.allows('VIEW_ENTITY_PAGE', { resource: facts.get(u.value)! })).map((u) => u.value));
  }

  /** Refuses (PrivilegeRefusal) when the caller may not read one of the entities. */
  async requireRead(caller: Caller, urns: readonly Urn[], what = 'Reading'): Promise<void> {
    if (urns.length === 0) return;
    const policies = await this.forCaller(caller);
    if (policies.bypass || (await this.readFilterOf(caller)).kind === 'all') return;
    const facts = await this.factsOf(urns, policies.needsFor(['VIEW_ENTITY_PAGE']));
    for (const urn of urns) {
      const resource = facts.get(urn.value)!;
      if (!policies.allows('VIEW_ENTITY_PAGE', { resource })) throw new PrivilegeRefusal(`${what} ${urn.value}`, 'VIEW_ENTITY_PAGE', policies.principal, { resource });
    }
  }

  /** Refuses when no policy grants the caller a platform privilege (tokens, policies, bulk edits). */
  async requirePlatform(caller: Caller, privilege: Privilege, what: string): Promise<void> {
    const policies = await this.forCaller(caller);
    if (!policies.allows(privilege)) throw new PrivilegeRefusal(what, privilege, policies.principal, {});
  }
}
