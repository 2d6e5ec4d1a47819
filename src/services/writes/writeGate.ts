/**
 * Who may write what, decided per entity inside the one write entry point
 * (writeService.ts), whatever interface or job made the plan. A gate gives each plan a
 * judge: what the plan names (the entity, each aspect changed or deleted) is judged
 * before anything is loaded, and what only the decision shows (values changed, a soft
 * delete, values dropped) after it, with the entity as the write found it.
 *
 * The scopes (docs/contract.md §10) are the ceiling every judge applies first: `write`
 * for values and definitions, `admin` for metadata-test and policy management, hard
 * deletes (of an entity or a definition, by any route) and changes that drop stored
 * values. The policies refine them per entity and property (policyGate.ts).
 */
import { scopeAllows } from '../../domain/accessToken.js';
import { ForbiddenError } from '../../domain/errors.js';
import { NO_FACT_NEEDS, type FactNeeds } from '../../domain/policies/resources.js';
import type { EntityTypeInfo } from '../../domain/registry/entityTypes.js';
import type { EntityPlan, WritePlan } from '../../domain/writes/plan.js';
import type { EntityWriteDecision } from '../../domain/writes/writeDecision.js';
import type { EntityState } from '../../domain/writes/writeState.js';
import type { Caller, Scope } from '../caller.js';

/** What dropping stored values needs (a new version of a property that has values, a migration that drops some): as a hard delete. */
export const DROP_VALUES_SCOPE: Scope = 'admin';

/** Whether a write may drop stored values of a property; when not, what it would take ("a token with admin scope"). */
export type ValueDrops = 'allowed' | { readonly refusedUnless: string };

/** The judge of one plan, for one caller. */
export interface PlanJudge {
  /** What the judge reads of every entity written, beside what the write loads (nothing for the scopes and the shipped policies). */
  readonly needs: FactNeeds;
  /** Refuses (ForbiddenError) what the caller may not do to this entity, as the plan names it. */
  beforeLoad(entity: EntityPlan): void;
  /** Refuses what the caller may not do that only the decision shows, on the entity as the write found it. */
  afterDecision(decision: EntityWriteDecision, entity: EntityState): void;
  /** Whether the write may drop stored values of the property. */
  valueDrops(propertyUrn: string): ValueDrops;
}

export interface WriteGate {
  /** The judge of a plan, with the rules as they stand when it starts. */
  judge(caller: Caller, plan: WritePlan): Promise<PlanJudge>;
}

/** Writing to a metadata test or a policy (any of its aspects) is their management: admin. */
export function writeScope(type: EntityTypeInfo): Scope {
  return type.adminWrites ? 'admin' : 'write';
}

/**
 * Deleting an aspect edits the entity, unless it ends in a removal: deleting the key
 * aspect hard-deletes the entity, and deleting a property's propertyDefinition drops it
 * from the registry and queues the removal of its values. Those need admin.
 */
export function deleteScope(type: EntityTypeInfo, aspect: string): Scope {
  return aspect === type.keyAspect || type.definitionAspect === aspect ? 'admin' : writeScope(type);
}

/** The scope the plan's changes to one entity need. */
export function scopeNeeded(entity: EntityPlan): Scope {
  const type = entity.urn.entityType;
  if (entity.deleteEntity) return 'admin';
  const needs = entity.changes.map((c) => (c.op === 'delete' ? deleteScope(type, c.aspect) : writeScope(type)));
  return needs.includes('admin') ? 'admin' : 'write';
}

function what(entity: EntityPlan): string {
  if (entity.deleteEntity) return `Deleting ${entity.urn.value}`;
  const aspects = entity.changes.map((c) => (c.op === 'delete' ? `deleting ${c.aspect}` : c.aspect)).join(', ');
  return `Writing ${aspects || 'nothing'} of ${entity.urn.value}`;
}

/** The scope check of one entity: a ForbiddenError naming the scope the change needs. */
export function requireScope(caller: Caller, entity: EntityPlan): void {
  const need = scopeNeeded(entity);
  if (!scopeAllows(caller.scope, need)) throw new ForbiddenError(`${what(entity)} needs a token with ${need} scope; this token has ${caller.scope} scope`);
}

/** The scope's answer about dropping stored values. */
export function scopeValueDrops(caller: Caller): ValueDrops {
  return scopeAllows(caller.scope, DROP_VALUES_SCOPE) ? 'allowed' : { refusedUnless: `a token with ${DROP_VALUES_SCOPE} scope` };
}

/** The scopes of today's tokens alone, as one gate (the policies' gate applies them first). */
export function scopeJudge(caller: Caller): PlanJudge {
  return {
    needs: NO_FACT_NEEDS,
    beforeLoad: (entity) => requireScope(caller, entity),
    afterDecision: () => undefined,
    valueDrops: () => scopeValueDrops(caller),
  };
}

export const scopeGate: WriteGate = {
  judge: async (caller) => scopeJudge(caller),
};
