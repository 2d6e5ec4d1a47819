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
import { bulkEditPolicy, propertyPolicy, testPolicy, tokenPolicy, valuePolicy } from './policies.js';

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
    bulkEditStructuredPropertyValues: may(bulkEditPolicy.edit) && policies.allows('BULK_EDIT') && somewhere('EDIT_ENTITY_PROPERTIES'),
  };
}

export function entityPrivilegesOf(policies: PrincipalPolicies, resource: ResourceFacts): EntityPrivileges {
  const edit = findEntityType(resource.entityType)?.writePrivilege ?? 'EDIT_ENTITY';
  // A definition's privileges concern the property itself, as a write of it asks them (domain/policies/writeAsks.ts).
  const property = edit === 'MANAGE_STRUCTURED_PROPERTIES' ? { property: resource.urn } : {};
  const on = (p: Privilege) => policies.allows(p, { resource, ...(p === 'VIEW_ENTITY_PAGE' ? {} : property) });
  const all = policies.allows('EDIT_ENTITY_PROPERTIES', { resource, property: ALL_PROPERTIES });
  // The policies covering this entity but not every property (the property is judged apart):
  // the union of what they cover is a list (those named) or every property but some (those left out by all of them).
  const some = new Set<string>();
  let allBut: Set<string> | null = null;
  if (!all && withinCeiling(policies.principal.scope, 'EDIT_ENTITY_PROPERTIES')) {
    for (const p of policies.candidates('EDIT_ENTITY_PROPERTIES')) {
      if (refusalOf(p, policies.principal, 'EDIT_ENTITY_PROPERTIES', { resource }) !== undefined) continue;
      if (p.properties === null) allBut = allBut === null ? new Set(p.exceptProperties) : new Set(p.exceptProperties.filter((x) => allBut!.has(x)));
      else for (const prop of p.properties) if (!p.exceptProperties.includes(prop)) some.add(prop);
    }
  }
  const notEditable = allBut === null ? [] : [...allBut].filter((x) => !some.has(x)).sort();
  return {
    urn: resource.urn,
    canView: on('VIEW_ENTITY_PAGE'),
    canEdit: on(edit),
    canSoftDelete: on(edit === 'EDIT_ENTITY' ? 'SOFT_DELETE_ENTITY' : edit),
    canDelete: on(edit === 'EDIT_ENTITY' || edit === 'MANAGE_STRUCTURED_PROPERTIES' ? 'DELETE_ENTITY' : edit),
    // Every property is covered, by one policy or between several leaving out different ones.
    canEditAllProperties: all || (allBut !== null && notEditable.length === 0),
    editableProperties: allBut === null ? [...some].sort() : [],
    propertiesNotEditable: notEditable,
  };
}
