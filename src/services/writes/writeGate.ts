/**
 * Who may write what, decided per entity inside the one write entry point
 * (writeService.ts), whatever interface or job made the plan: what the plan names
 * (the entity, each aspect changed or deleted) is judged before anything is loaded, and
 * what only the decision shows (values dropped) after it. The rules here reproduce the
 * scopes (docs/contract.md §10): `write` for values and definitions, `admin` for
 * metadata-test management, hard deletes (of an entity or a definition, by any route)
 * and changes that drop stored values.
 */
import { scopeAllows } from '../../domain/accessToken.js';
import { ForbiddenError } from '../../domain/errors.js';
import type { EntityTypeInfo } from '../../domain/registry/entityTypes.js';
import type { EntityPlan } from '../../domain/writes/plan.js';
import type { EntityWriteDecision } from '../../domain/writes/writeDecision.js';
import type { Caller, Scope } from '../caller.js';

/** What dropping stored values needs (a new version of a property that has values, a migration that drops some): as a hard delete. */
export const DROP_VALUES_SCOPE: Scope = 'admin';

export interface WriteGate {
  /** Refuses (ForbiddenError) what the caller may not do to this entity, as the plan names it. */
  beforeLoad(caller: Caller, entity: EntityPlan): void;
  /** Refuses what the caller may not do that only the decision shows. */
  afterDecision(caller: Caller, decision: EntityWriteDecision): void;
  /** Whether the caller's writes may drop stored values; when not, the scope it would take. */
  valueDrops(caller: Caller): 'allowed' | { readonly refusedUnless: Scope };
}

/** Writing to a metadata test (any of its aspects) is test management: admin. */
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

/** The scopes of today's tokens, as one gate. */
export const scopeGate: WriteGate = {
  beforeLoad(caller, entity) {
    const need = scopeNeeded(entity);
    if (!scopeAllows(caller.scope, need)) throw new ForbiddenError(`${what(entity)} needs a token with ${need} scope; this token has ${caller.scope} scope`);
  },
  afterDecision() {},
  valueDrops: (caller) => (scopeAllows(caller.scope, DROP_VALUES_SCOPE) ? 'allowed' : { refusedUnless: DROP_VALUES_SCOPE }),
};
