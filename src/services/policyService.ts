/**
 * Policies managed as data and as code (docs/security.md, "Policies"): listing, reading,
 * creating, changing and deleting them (DataHub's listPolicies, createPolicy,
 * updatePolicy, deletePolicy), and applying a file of them with what it changes for
 * whom. Every change is a plan through the one write path, so it is authorized there
 * (MANAGE_POLICIES, admin scope), versioned (history), a lifecycle event, audited and
 * backed up like any aspect. Why a principal may or may not do something is
 * policyExplain.ts's.
 */
import { randomUUID } from 'node:crypto';
import { AlreadyExistsError, NotFoundError, ValidationError } from '../domain/errors.js';
import { DEFAULT_POLICIES } from '../domain/policies/defaults.js';
import { parsePolicy, parsePolicyId, policyInfoOf, policyUrn, POLICY_ASPECT, type Policy } from '../domain/policies/policy.js';
import { diffPolicies, type PolicyChange } from '../domain/policies/policyDiff.js';
import { pageSize, PAGE_LIMITS } from '../domain/limits.js';
import { ENTITY } from '../domain/registry/entityTypes.js';
import { parseUrnOfType } from '../domain/urn.js';
import { entityDeletePlan, entityPlan, type EntityPlan } from '../domain/writes/plan.js';
import type { AccessPolicies, PolicyInForce } from './accessPolicies.js';
import type { Caller, WriteOptions } from './caller.js';
import type { WriteService } from './writes/writeService.js';
import type { Written } from './writeReceipt.js';

export interface PolicyView {
  readonly urn: string;
  readonly policy: Policy;
  /** As stored: DataHub's dataHubPolicyInfo. */
  readonly info: Record<string, unknown>;
  /** `default`: a shipped default in force as shipped; `stored`: written by someone. */
  readonly origin: 'default' | 'stored';
  /** Whether its URN is a shipped default's (deleting the stored one brings the default back). */
  readonly shipped: boolean;
  readonly lastModified: { readonly time: number; readonly actor: string } | null;
}

export interface ListPoliciesInput {
  readonly start?: number | null;
  readonly count?: number | null;
  /** Words to find in the name, description or URN (case-insensitive). */
  readonly query?: string | null;
}

export interface ApplyPoliciesInput {
  /** The policies the file holds: each `{id, ...dataHubPolicyInfo}` (or `urn` for `id`). */
  readonly policies: readonly unknown[];
  /** Also delete stored policies the file leaves out, and turn off shipped defaults it leaves out. */
  readonly prune?: boolean;
  readonly dryRun?: boolean;
}

export interface ApplyPoliciesResult {
  readonly dryRun: boolean;
  readonly changes: readonly PolicyChange[];
}

export interface PolicyService {
  list(caller: Caller, input?: ListPoliciesInput): Promise<{ start: number; count: number; total: number; policies: PolicyView[] }>;
  get(caller: Caller, urnOrId: string): Promise<PolicyView>;
  create(caller: Caller, input: { readonly id?: string | null; readonly policy: unknown }, options?: WriteOptions): Promise<Written<PolicyView>>;
  update(caller: Caller, urnOrId: string, policy: unknown, options?: WriteOptions): Promise<Written<PolicyView>>;
  /** Deletes a stored policy; a shipped default's URN is then in force as shipped again. */
  delete(caller: Caller, urnOrId: string, options?: WriteOptions): Promise<Written<{ urn: string; defaultRestored: boolean }>>;
  apply(caller: Caller, input: ApplyPoliciesInput, options?: WriteOptions): Promise<Written<ApplyPoliciesResult>>;
}

export interface PolicyServiceDeps {
  readonly access: AccessPolicies;
  readonly writes: WriteService;
}

const SHIPPED = new Set(DEFAULT_POLICIES.map((p) => p.urn));
const MAX_APPLIED = 1000;

/** A policy's URN from its id or URN. */
export function policyUrnOf(urnOrId: string, field = 'urn'): string {
  return policyUrn(parsePolicyId(urnOrId, field));
}

function viewOf(entry: PolicyInForce): PolicyView {
  return { urn: entry.policy.urn, policy: entry.policy, info: policyInfoOf(entry.policy), origin: entry.origin, shipped: SHIPPED.has(entry.policy.urn), lastModified: entry.lastModified };
}

function matches(p: Policy, query: string): boolean {
  const q = query.toLowerCase();
  return [p.urn, p.name, p.description ?? ''].some((t) => t.toLowerCase().includes(q));
}

export class DefaultPolicyService implements PolicyService {
  constructor(private readonly deps: PolicyServiceDeps) {}

  async list(caller: Caller, input: ListPoliciesInput = {}): Promise<{ start: number; count: number; total: number; policies: PolicyView[] }> {
    const start = input.start ?? 0;
    if (!Number.isInteger(start) || start < 0) throw new ValidationError(`start must be a whole number >= 0, got ${start}`, 'start');
    const count = pageSize(input.count, PAGE_LIMITS.maxCount);
    const query = input.query?.trim() ?? '';
    const entries = (await this.deps.access.current()).entries.filter((e) => query === '' || query === '*' || matches(e.policy, query));
    const readable = await this.deps.access.readable(caller, entries.map((e) => parseUrnOfType(e.policy.urn, ENTITY.dataHubPolicy)));
    const shown = entries.filter((e) => readable.has(e.policy.urn));
    const page = shown.slice(start, start + count).map(viewOf);
    return { start, count: page.length, total: shown.length, policies: page };
  }

  async get(caller: Caller, urnOrId: string): Promise<PolicyView> {
    const urn = policyUrnOf(urnOrId);
    const entry = (await this.deps.access.current()).entries.find((e) => e.policy.urn === urn);
    if (!entry) throw new NotFoundError(`Policy ${urn} does not exist`);
    await this.deps.access.requireRead(caller, [parseUrnOfType(urn, ENTITY.dataHubPolicy)]);
    return viewOf(entry);
  }

  private async written(urn: string): Promise<PolicyView> {
    const entry = (await this.deps.access.current()).entries.find((e) => e.policy.urn === urn);
    if (!entry) throw new NotFoundError(`Policy ${urn} does not exist`);
    return viewOf(entry);
  }

  async create(caller: Caller, input: { readonly id?: string | null; readonly policy: unknown }, options: WriteOptions = {}): Promise<Written<PolicyView>> {
    const urn = policyUrnOf(input.id ?? randomUUID(), 'id');
    if (SHIPPED.has(urn)) throw new AlreadyExistsError(`Policy ${urn} is a shipped default and exists already; change it with an update`);
    const info = policyInfoOf(parsePolicy(urn, input.policy, 'policy'));
    const { receipt } = await this.deps.writes.submit(caller, entityPlan(parseUrnOfType(urn, ENTITY.dataHubPolicy), [{ op: 'set', aspect: POLICY_ASPECT, value: info, createOnly: true }]), options);
    return { result: await this.written(urn), receipt };
  }

  async update(caller: Caller, urnOrId: string, policy: unknown, options: WriteOptions = {}): Promise<Written<PolicyView>> {
    const urn = policyUrnOf(urnOrId);
    const info = policyInfoOf(parsePolicy(urn, policy, 'policy'));
    const change = {
      op: 'compute' as const,
      aspect: POLICY_ASPECT,
      compute: (current: unknown) => {
        if (current === undefined && !SHIPPED.has(urn)) throw new NotFoundError(`Policy ${urn} does not exist; create it first`);
        return info;
      },
    };
    const { receipt } = await this.deps.writes.submit(caller, entityPlan(parseUrnOfType(urn, ENTITY.dataHubPolicy), [change], { createsEntity: true }), options);
    return { result: await this.written(urn), receipt };
  }

  async delete(caller: Caller, urnOrId: string, options: WriteOptions = {}): Promise<Written<{ urn: string; defaultRestored: boolean }>> {
    const urn = policyUrnOf(urnOrId);
    const entry = (await this.deps.access.current()).entries.find((e) => e.policy.urn === urn);
    if (!entry) throw new NotFoundError(`Policy ${urn} does not exist`);
    if (entry.origin === 'default') {
      throw new ValidationError(`Policy ${urn} is a shipped default and cannot be deleted; turn it off by updating it with state INACTIVE`, 'urn');
    }
    const { receipt } = await this.deps.writes.submit(caller, entityDeletePlan(parseUrnOfType(urn, ENTITY.dataHubPolicy)), options);
    return { result: { urn, defaultRestored: SHIPPED.has(urn) }, receipt };
  }

  async apply(caller: Caller, input: ApplyPoliciesInput, options: WriteOptions = {}): Promise<Written<ApplyPoliciesResult>> {
    if (!Array.isArray(input.policies)) throw new ValidationError('policies must be a list of policies, each {id, displayName, privileges, actors, resources?}', 'policies');
    if (input.policies.length > MAX_APPLIED) throw new ValidationError(`policies holds ${input.policies.length} policies, more than the limit of ${MAX_APPLIED}`, 'policies');
    const desired = input.policies.map((entry, i) => {
      const e = (entry ?? {}) as { id?: unknown; urn?: unknown };
      const urn = policyUrnOf(String(e.id ?? e.urn ?? ''), `policies[${i}].id`);
      return parsePolicy(urn, entry, `policies[${i}]`);
    });
    const seen = new Map<string, number>();
    desired.forEach((p, i) => {
      const earlier = seen.get(p.urn);
      if (earlier !== undefined) throw new ValidationError(`policies[${i}] has the id of policies[${earlier}] (${p.urn}); give each policy its own id`, `policies[${i}].id`);
      seen.set(p.urn, i);
    });
    const current = (await this.deps.access.current()).entries.map((e) => ({ policy: e.policy, shipped: SHIPPED.has(e.policy.urn) }));
    const changes = diffPolicies(current, desired, input.prune === true);
    const wanted = new Map(desired.map((p) => [p.urn, p]));
    const entities: EntityPlan[] = changes.flatMap((c): EntityPlan[] => {
      const urn = parseUrnOfType(c.urn, ENTITY.dataHubPolicy);
      if (c.change === 'unchanged') return [];
      if (c.change === 'delete') return [{ urn, changes: [], deleteEntity: true }];
      const after = c.change === 'deactivate' ? { ...current.find((x) => x.policy.urn === c.urn)!.policy, state: 'INACTIVE' as const } : wanted.get(c.urn)!;
      return [{ urn, changes: [{ op: 'set', aspect: POLICY_ASPECT, value: policyInfoOf(after) }], createsEntity: true, label: { at: `policies ${c.urn}` } }];
    });
    const dryRun = input.dryRun === true;
    if (entities.length === 0) return { result: { dryRun, changes }, receipt: { indexStatus: 'indexed', lastChange: 0n } };
    const { receipt } = await this.deps.writes.submit(caller, { entities }, { ...options, dryRun });
    return { result: { dryRun, changes }, receipt };
  }
}
