/**
 * Who a person signed in through OpenID Connect is, read from the claims their provider
 * vouched for: the principal (`urn:li:corpuser:<email or sub>`, domain/principal.ts) and the scope their
 * groups give them (OIDC_GROUP_SCOPES, e.g. `admins:admin,stewards:write,*:read`).
 * Pure: the claims arrive verified (identity/openIdProvider.ts).
 */
import { SCOPES, type TokenScope } from './tokenScope.js';
import { isEmailAddress, personPrincipal, plainIdProblem } from './principal.js';

/** One rule of the mapping: members of `group` (or everyone, for `*`) get `scope`. */
export interface GroupScope {
  readonly group: string;
  readonly scope: TokenScope;
}

/** Everyone the provider signs in may read, unless OIDC_GROUP_SCOPES says otherwise. */
export const DEFAULT_GROUP_SCOPES = '*:read';

export const EVERYONE = '*';

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
  /** The claim naming the person: `email` (only when the provider says it is verified), else `sub`. */
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
 * The id the configured user claim gives, undefined when it gives none (absent, empty,
 * or an email the provider does not vouch for: the subject is used then), or a refusal
 * when the provider vouches for something that is not an email address.
 */
function idFromUserClaim(claims: Readonly<Record<string, unknown>>, userClaim: string): { ok: true; id: string } | { ok: false; reason: string } | undefined {
  const value = claimAt(claims, userClaim);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const id = value.trim();
  if (userClaim !== 'email') return { ok: true, id };
  if (claims.email_verified !== true) return undefined;
  if (!isEmailAddress(id)) return { ok: false, reason: `the provider's email claim ${JSON.stringify(id.slice(0, 200))} is not an email address (local@domain.tld, without spaces, commas or colons), so it cannot name a person` };
  return { ok: true, id };
}

/**
 * The person behind verified claims. The claims arrive signed by the provider, but what
 * they say is read strictly: an `email` names the person only when the provider says it
 * is verified (`email_verified` exactly `true`; `"false"`, `"true"` as text, or no such
 * claim do not vouch for anything, as anyone may type an address at many providers);
 * otherwise the subject, which the provider guarantees unique. The id must be a plain
 * identifier (domain/principal.ts): never the form of a machine's or the system's
 * principal, nor something that reads as a urn or a list.
 */
export function personOfClaims(claims: Readonly<Record<string, unknown>>, rules: PersonRules): PersonOutcome {
  const chosen = idFromUserClaim(claims, rules.userClaim);
  if (chosen && !chosen.ok) return chosen;
  const id = chosen?.id ?? claims.sub;
  const from = chosen ? rules.userClaim : 'sub';
  if (typeof id !== 'string' || id === '') return { ok: false, reason: 'the provider sent no subject (sub) for this person' };
  const problem = plainIdProblem(id);
  if (problem) return { ok: false, reason: `the person's id ${JSON.stringify(id.slice(0, 200))} (the ${from} claim) ${problem}, so it cannot name a person; ask an administrator to set OIDC_USER_CLAIM to a claim holding a plain identifier` };
  const urn = personPrincipal(id);
  const groups = groupsOf(claimAt(claims, rules.groupsClaim));
  const scope = scopeOfGroups(groups, rules.groupScopes);
  if (!scope) {
    const held = groups.length > 0 ? `groups ${groups.slice(0, 20).join(', ')}` : `no groups in the claim ${rules.groupsClaim}`;
    return { ok: false, reason: `${urn} has ${held}, and none is given a scope (OIDC_GROUP_SCOPES); ask an administrator to add you to a group that is` };
  }
  const name = typeof claims.name === 'string' ? claims.name : null;
  return { ok: true, person: { urn, scope, groups, name } };
}
