/**
 * The policies' gate (docs/security.md, "Policies"): every entity of every plan, from
 * every interface and job, is judged here, after the scopes (writeGate.ts), against the
 * policies in force when the plan starts (accessPolicies.ts). Which privileges a write
 * asks for is domain/policies/writeAsks.ts's; whether they are granted,
 * domain/policies/evaluate.ts's. Nothing is read per entity: the facts a policy's
 * resources name (domains, owners, tags, values) are loaded with the write's own state,
 * for every entity at once, and only when a policy in force for the caller reads them.
 */
import type { PrincipalPolicies } from '../../domain/policies/evaluate.js';
import type { Privilege } from '../../domain/policies/privileges.js';
import type { FactNeeds, ResourceFacts } from '../../domain/policies/resources.js';
import { decisionAsks, factsOfUrn, factsOfWrite, planAsks, type Ask } from '../../domain/policies/writeAsks.js';
import { parseUrn, type Urn } from '../../domain/urn.js';
import { deletesSomething, type EntityPlan, type WritePlan } from '../../domain/writes/plan.js';
import type { EntityWriteDecision } from '../../domain/writes/writeDecision.js';
import type { EntityState } from '../../domain/writes/writeState.js';
import { PrivilegeRefusal, type AccessPolicies } from '../accessPolicies.js';
import type { Caller } from '../caller.js';
import { requireScope, scopeJudge, scopeValueDrops, type PlanJudge, type ValueDrops, type WriteGate } from './writeGate.js';

/** The privileges a write may ask for on an entity (what the facts are loaded for). */
const WRITE_PRIVILEGES: readonly Privilege[] = ['EDIT_ENTITY', 'EDIT_ENTITY_PROPERTIES', 'SOFT_DELETE_ENTITY', 'MANAGE_STRUCTURED_PROPERTIES', 'DELETE_ENTITY', 'MANAGE_TESTS'];

class PolicyJudge implements PlanJudge {
  /** Asks of entities judged after the decision, when their facts are known, by URN. */
  private readonly pending = new Map<string, Ask[]>();
  /** The plan's URNs, parsed once. */
  private readonly urns = new Map<string, Urn>();

  constructor(
    private readonly caller: Caller,
    private readonly policies: PrincipalPolicies,
    readonly needs: FactNeeds,
    /** Facts of the entities a plan deletes from, read before (deletes are not decided on the write's state). */
    private readonly deleteFacts: ReadonlyMap<string, ResourceFacts>,
  ) {}

  private get factsNeeded(): boolean {
    return this.needs.aspects.length > 0 || this.needs.values;
  }

  private check(asks: readonly Ask[], resource: ResourceFacts): void {
    for (const ask of asks) {
      const target = { resource, ...(ask.property !== undefined ? { property: ask.property } : {}) };
      if (!this.policies.allows(ask.privilege, target)) throw new PrivilegeRefusal(ask.what, ask.privilege, this.policies.principal, target);
    }
  }

  beforeLoad(entity: EntityPlan): void {
    requireScope(this.caller, entity);
    this.urns.set(entity.urn.value, entity.urn);
    const asks = planAsks(entity);
    if (deletesSomething(entity) || !this.factsNeeded) {
      this.check(asks, this.deleteFacts.get(entity.urn.value) ?? factsOfUrn(entity.urn));
      return;
    }
    this.pending.set(entity.urn.value, asks);
  }

  afterDecision(decision: EntityWriteDecision, state: EntityState): void {
    const urn = this.urns.get(decision.urn) ?? parseUrn(decision.urn);
    const asks = [...(this.pending.get(decision.urn) ?? []), ...decisionAsks(urn, decision, state)];
    if (asks.length === 0) return;
    this.check(asks, this.factsNeeded ? factsOfWrite(urn, decision, state) : factsOfUrn(urn));
  }

  valueDrops(propertyUrn: string): ValueDrops {
    const byScope = scopeValueDrops(this.caller);
    if (byScope !== 'allowed') return byScope;
    const target = { resource: factsOfUrn(propertyUrn), property: propertyUrn };
    if (this.policies.allows('DELETE_ENTITY', target)) return 'allowed';
    return { refusedUnless: `the DELETE_ENTITY privilege on ${propertyUrn}, and no active policy grants it to ${this.caller.actor}` };
  }
}

export class PolicyGate implements WriteGate {
  constructor(private readonly access: AccessPolicies) {}

  async judge(caller: Caller, plan: WritePlan): Promise<PlanJudge> {
    const policies = await this.access.forWrite(caller);
    if (policies.bypass) return scopeJudge(caller);
    const needs = policies.needsFor(WRITE_PRIVILEGES);
    const factsNeeded = needs.aspects.length > 0 || needs.values;
    const deleting: Urn[] = factsNeeded ? plan.entities.filter(deletesSomething).map((e) => e.urn) : [];
    const deleteFacts = deleting.length > 0 ? await this.access.factsOf(deleting, needs) : new Map<string, ResourceFacts>();
    return new PolicyJudge(caller, policies, needs, deleteFacts);
  }
}
