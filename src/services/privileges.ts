/**
 * What a caller's scope allows, read from the policies themselves, so that clients
 * (the web console) show exactly the actions the services will accept.
 */
import { scopeAllows } from '../domain/accessToken.js';
import { isPerson, type Caller, type Scope } from './caller.js';
import { propertyPolicy, testPolicy, tokenPolicy, valuePolicy } from './policies.js';

export interface Privileges {
  readonly manageStructuredProperties: boolean;
  readonly deleteStructuredProperties: boolean;
  readonly editStructuredPropertyValues: boolean;
  readonly manageTests: boolean;
  readonly pushTestResults: boolean;
  readonly manageTokens: boolean;
  readonly managePersonalTokens: boolean;
}

const SCOPES: readonly unknown[] = ['read', 'write', 'admin'];

/** The scope a policy rule names; privileges are read only from rules that name one. */
function scopeOfRule(rule: unknown): Scope {
  if (!SCOPES.includes(rule)) throw new Error(`privileges need a rule naming a scope, not ${String(rule)}`);
  return rule as Scope;
}

export function privilegesOf(caller: Caller): Privileges {
  const may = (rule: unknown) => scopeAllows(caller.scope, scopeOfRule(rule));
  const evaluate = testPolicy.evaluate;
  const pushScope = typeof evaluate === 'function' ? evaluate(caller, { urn: '', push: true }) : evaluate;
  return {
    manageStructuredProperties: [propertyPolicy.create, propertyPolicy.update, propertyPolicy.replace, propertyPolicy.softDelete, propertyPolicy.restore].every(may),
    deleteStructuredProperties: may(propertyPolicy.delete),
    editStructuredPropertyValues: may(valuePolicy.upsert) && may(valuePolicy.remove),
    manageTests: [testPolicy.createTest, testPolicy.updateTest, testPolicy.deleteTest].every(may),
    pushTestResults: may(pushScope),
    // Every token: issuing machine tokens is what only this allows.
    manageTokens: may(tokenPolicy.create(caller, { name: '', scope: 'read', type: 'machine' })),
    managePersonalTokens: isPerson(caller) && [tokenPolicy.create(caller, { name: '', scope: 'read', type: 'personal' }), tokenPolicy.list(caller), tokenPolicy.revoke(caller)].every(may),
  };
}
