/**
 * Who a person signed in through OpenID Connect is, read from the claims their provider
 * vouched for: the principal (`urn:li:corpuser:<email or sub>`) and the scope their
 * groups give them (OIDC_GROUP_SCOPES, e.g. `admins:admin,stewards:write,*:read`).
 * Pure: the claims arrive verified (identity/openIdProvider.ts).
 */
import { SCOPES, type TokenScope } from './accessToken.js';
import { tryParseUrn } from './urn.js';

/** One rule of the mapping: members of `group` (or everyone, for `*`) get `scope`. */
export interface GroupScope {
  readonly group: string;
  readonly scope: TokenScope;
}

/** Everyone the provider signs in may read, unless OIDC_GROUP_SCOPES says otherwise. */
export const DEFAULT_GROUP_SCOPES = '*:read';

export const EVERYONE = '*';

/** The longest principal id accepted (the actor is recorded on every write). */
const MAX_ID_LENGTH = 500;

/**
 * Parses `group:scope` pairs separated by commas. A group name may itself hold colons
 * (Okta's `app:team`, a URN): the scope is what follows the last one. Throws an Error
 * naming the bad pair; config.ts turns it into a ConfigError.
 */
export function parseGroupScopes(text: string): GroupScope[] {
  const rules: GroupScope[] = [];
  for (const raw of text.split(',')) {
    const pair = raw.trim();
    if (pair === '') continue;
    const at = pair.lastIndexOf(':');
    const group = at > 0 ? pair.slice(0, at).trim() : '';
    const scope = at > 0 ? pair.slice(at + 1).trim().toLowerCase() : '';
    if (group === '' || !SCOPES.includes(scope as TokenScope)) {
      throw new Error(`${JSON.stringify(pair)} is not group:scope with a scope of read, write or admin (e.g. admins:admin,stewards:write,*:read)`);
    }
    rules.push({ group, scope: scope as TokenScope });
  }
  if (rules.length === 0) throw new Error('names no group: give group:scope pairs such as admins:admin,*:read');
  return rules;
}

/** The largest scope any of the person's groups (or `*`) is given; undefined when none applies. */
export function scopeOfGroups(groups: readonly string[], rules: readonly GroupScope[]): TokenScope | undefined {
  let best = -1;
  for (const rule of rules) {
    if (rule.group !== EVERYONE && !groups.includes(rule.group)) continue;
    best = Math.max(best, SCOPES.indexOf(rule.scope));
  }
  return best < 0 ? undefined : SCOPES[best];
}

/**
 * A claim by name: an exact key first (Auth0's `https://example.com/groups`), then a
 * dotted path into nested objects (Keycloak's `realm_access.roles`).
 */
export function claimAt(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  if (name in claims) return claims[name];
  let node: unknown = claims;
  for (const part of name.split('.')) {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Group names from a claim holding a list of names or one name; anything else gives none. */
export function groupsOf(claim: unknown): string[] {
  if (typeof claim === 'string') return [claim];
  if (Array.isArray(claim)) return claim.filter((g): g is string => typeof g === 'string');
  return [];
}

export interface PersonRules {
  /** The claim naming the person: `email` (when the provider does not call it unverified), else `sub`. */
  readonly userClaim: string;
  readonly groupsClaim: string;
  readonly groupScopes: readonly GroupScope[];
}

export interface Person {
  /** `urn:li:corpuser:<id>`: the actor on everything they write. */
  readonly urn: string;
  readonly scope: TokenScope;
  readonly groups: readonly string[];
  readonly name: string | null;
}

export type PersonOutcome = { ok: true; person: Person } | { ok: false; reason: string };

/**
 * The person behind verified claims. The user claim is used when it is a string the
 * provider does not mark unverified (an `email` with `email_verified: false` could be
 * anyone's address); otherwise the subject, which the provider guarantees unique.
 */
export function personOfClaims(claims: Readonly<Record<string, unknown>>, rules: PersonRules): PersonOutcome {
  const chosen = claimAt(claims, rules.userClaim);
  const unverified = rules.userClaim === 'email' && claims.email_verified === false;
  const id = typeof chosen === 'string' && chosen.trim() !== '' && !unverified ? chosen.trim() : claims.sub;
  if (typeof id !== 'string' || id === '') return { ok: false, reason: 'the provider sent no subject (sub) for this person' };
  if (id.length > MAX_ID_LENGTH) return { ok: false, reason: `the person's id is longer than ${MAX_ID_LENGTH} characters` };
  if (/[\s\u0000-\u001f\u007f]/.test(id)) return { ok: false, reason: `the person's id ${JSON.stringify(id.slice(0, 200))} contains spaces or control characters` };
  const urn = `urn:li:corpuser:${id}`;
  if (!tryParseUrn(urn).ok) return { ok: false, reason: `the person's id ${JSON.stringify(id.slice(0, 200))} does not make a valid urn` };
  const groups = groupsOf(claimAt(claims, rules.groupsClaim));
  const scope = scopeOfGroups(groups, rules.groupScopes);
  if (!scope) {
    const held = groups.length > 0 ? `groups ${groups.slice(0, 20).join(', ')}` : `no groups in the claim ${rules.groupsClaim}`;
    return { ok: false, reason: `${urn} has ${held}, and none is given a scope (OIDC_GROUP_SCOPES); ask an administrator to add you to a group that is` };
  }
  const name = typeof claims.name === 'string' ? claims.name : null;
  return { ok: true, person: { urn, scope, groups, name } };
}
