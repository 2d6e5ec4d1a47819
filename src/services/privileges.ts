/**
 * What a caller may do, read from the method rules (policies.ts) and the policies in
 * force (accessPolicies.ts), so that clients (the web console) show exactly the actions
 * the services will accept: a platform action when a policy grants it, an action on
 * entities when some policy could grant it somewhere (the server still judges each
 * entity), and for one entity, what may be done to it (entityPrivileges).
 */
import { scopeAllows } from '../domain/accessToken.js';
import { ALL_PROPERTIES, refusalOf, type PrincipalPolicies } from '../domain/policies/evaluate.js';
import { findEntityType } from '../domain/registry/entityTypes.js';
import { withinCeiling, type Privilege } from '../domain/policies/privileges.js';
import type { ResourceFacts } from '../domain/policies/resources.js';
import type { EntityPrivileges, Privileges } from './accessService.js';
import { isPerson, type Caller, type Scope } from './caller.js';
import { propertyPolicy, testPolicy, tokenPolicy, valuePolicy } from './policies.js';

const SCOPES: readonly unknown[] = ['read', 'write', 'admin'];

/** The scope a policy rule names; privileges are read only from rules that name one. */
function scopeOfRule(rule: unknown): Scope {
  if (!SCOPES.includes(rule)) throw new Error(`privileges need a rule naming a scope, not ${String(rule)}`);
  return rule as Scope;
}

export function privilegesOf(caller: Caller, policies: PrincipalPolicies): Privileges {
  const may = (rule: unknown) => scopeAllows(caller.scope, scopeOfRule(rule));
  const somewhere = (p: Privilege) => policies.mayHaveAnywhere(p);
  const evaluate = testPolicy.evaluate;
  const pushScope = typeof evaluate === 'function' ? evaluate(caller, { urn: '', push: true }) : evaluate;
  return {
    manageStructuredProperties: [propertyPolicy.create, propertyPolicy.update, propertyPolicy.replace, propertyPolicy.softDelete, propertyPolicy.restore].every(may) && somewhere('MANAGE_STRUCTURED_PROPERTIES'),
    deleteStructuredProperties: may(propertyPolicy.delete) && somewhere('DELETE_ENTITY'),
    editStructuredPropertyValues: may(valuePolicy.upsert) && may(valuePolicy.remove) && somewhere('EDIT_ENTITY_PROPERTIES'),
    manageTests: [testPolicy.createTest, testPolicy.updateTest, testPolicy.deleteTest].every(may) && somewhere('MANAGE_TESTS'),
    pushTestResults: may(pushScope) && somewhere('EDIT_ENTITY'),
    // Every token: issuing machine tokens is what only this allows.
    manageTokens: may(tokenPolicy.create(caller, { name: '', scope: 'read', type: 'machine' })) && policies.allows('MANAGE_ACCESS_TOKENS'),
    managePersonalTokens: isPerson(caller) && [tokenPolicy.create(caller, { name: '', scope: 'read', type: 'personal' }), tokenPolicy.list(caller), tokenPolicy.revoke(caller)].every(may),
    managePolicies: policies.allows('MANAGE_POLICIES'),
  };
}

export function entityPrivilegesOf(policies: PrincipalPolicies, resource: ResourceFacts): EntityPrivileges {
  const on = (p: Privilege) => policies.allows(p, { resource });
  const edit = findEntityType(resource.entityType)?.writePrivilege ?? 'EDIT_ENTITY';
  const all = policies.allows('EDIT_ENTITY_PROPERTIES', { resource, property: ALL_PROPERTIES });
  const some = new Set<string>();
  if (!all && withinCeiling(policies.principal.scope, 'EDIT_ENTITY_PROPERTIES')) {
    for (const p of policies.candidates('EDIT_ENTITY_PROPERTIES')) {
      // A policy covering this entity, limited to named properties (the property is judged apart).
      if (p.properties !== null && refusalOf(p, policies.principal, 'EDIT_ENTITY_PROPERTIES', { resource }) === undefined) for (const prop of p.properties) some.add(prop);
    }
  }
  return {
    urn: resource.urn,
    canView: on('VIEW_ENTITY_PAGE'),
    canEdit: on(edit),
    canSoftDelete: on(edit === 'EDIT_ENTITY' ? 'SOFT_DELETE_ENTITY' : edit),
    canDelete: on(edit === 'EDIT_ENTITY' || edit === 'MANAGE_STRUCTURED_PROPERTIES' ? 'DELETE_ENTITY' : edit),
    canEditAllProperties: all,
    editableProperties: [...some].sort(),
  };
}
