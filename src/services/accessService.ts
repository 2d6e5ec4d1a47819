/**
 * What the policies allow, asked directly (docs/security.md, "Policies"): the caller's
 * privileges (what the console offers), what may be done to one entity, and why
 * (docs/security.md, "Why: explaining a decision"): for any principal, privilege and
 * URN, which policies grant it or why each does not, and whether the token's scope
 * allows it at all; and the other way round, who could (which policies, which actors)
 * do something to an entity ("who could edit acme.pii on this dataset?"). Answered from
 * the same evaluation every write and read uses (domain/policies/evaluate.ts), on the
 * entity as it stands.
 */
import type { TokenScope } from '../domain/accessToken.js';
import type { PolicyReason } from '../domain/policies/evaluate.js';
import type { Privilege } from '../domain/policies/privileges.js';
import type { Caller } from './caller.js';

export interface ExplainInput {
  /** The principal asked about (a urn, or a person's id); absent: the caller. */
  readonly principal?: string | null;
  /** Their groups; absent: the caller's own, or those of the principal's latest token. */
  readonly groups?: readonly string[] | null;
  /** Their token's scope; absent: the caller's, or the largest of the principal's live tokens. */
  readonly scope?: string | null;
  readonly privilege: string;
  /** The entity; absent for platform privileges. */
  readonly urn?: string | null;
  /** For value and definition privileges: the property (qualified name or urn). */
  readonly property?: string | null;
}

export interface AccessExplanation {
  readonly principal: string;
  readonly groups: readonly string[];
  readonly scope: TokenScope;
  /** Where the scope and groups were taken from. */
  readonly basis: 'caller' | 'given' | 'tokens' | 'none';
  readonly privilege: Privilege;
  readonly resource: string | null;
  readonly property: string | null;
  readonly allowed: boolean;
  /** False when the scope is below the privilege's ceiling. */
  readonly withinScope: boolean;
  /** Policies do not apply to this principal (the system, the root token). */
  readonly bypass: boolean;
  readonly grantedBy: readonly PolicyReason[];
  readonly notGranting: readonly PolicyReason[];
  /** The answer in one sentence. */
  readonly summary: string;
}

export interface Grantee {
  readonly policy: PolicyReason;
  /** The actors the policy grants to here: principal and group URNs, `owners of the resource` (with who they are), `everyone signed in`. */
  readonly actors: readonly string[];
}

export interface WhoCould {
  readonly privilege: Privilege;
  readonly resource: string | null;
  readonly property: string | null;
  /** The scope a token needs besides. */
  readonly scopeNeeded: TokenScope;
  readonly grantees: readonly Grantee[];
  /** The resource's owners, when a policy grants to owners. */
  readonly owners: readonly string[];
}

export interface Privileges {
  readonly manageStructuredProperties: boolean;
  readonly deleteStructuredProperties: boolean;
  readonly editStructuredPropertyValues: boolean;
  readonly manageTests: boolean;
  readonly pushTestResults: boolean;
  readonly manageTokens: boolean;
  readonly managePersonalTokens: boolean;
  readonly managePolicies: boolean;
  /** Start bulk edits of values (BULK_EDIT, where some value may be edited at all). */
  readonly bulkEditStructuredPropertyValues: boolean;
}

/** What may be done to one entity. */
export interface EntityPrivileges {
  readonly urn: string;
  readonly canView: boolean;
  readonly canEdit: boolean;
  readonly canSoftDelete: boolean;
  readonly canDelete: boolean;
  /** Values of every structured property may be set. */
  readonly canEditAllProperties: boolean;
  /** The properties whose values may be set, when only those (URNs). */
  readonly editableProperties: readonly string[];
  /** When the values of every property but some may be set: those (URNs); empty otherwise. */
  readonly propertiesNotEditable: readonly string[];
}

/** Whether some property's values may be set on the entity (what DataHub's app offers as editing properties). */
export function editsSomeProperty(e: EntityPrivileges): boolean {
  return e.canEditAllProperties || e.editableProperties.length > 0 || e.propertiesNotEditable.length > 0;
}

export interface AccessService {
  /** Why the principal (the caller by default) may or may not use the privilege on the entity. */
  explain(caller: Caller, input: ExplainInput): Promise<AccessExplanation>;
  /** Which policies grant the privilege on the entity, to whom. */
  whoCould(caller: Caller, input: { privilege: string; urn?: string | null; property?: string | null }): Promise<WhoCould>;
  /** The caller's privileges, as clients show them. */
  privileges(caller: Caller): Promise<Privileges>;
  /** What the caller may do to one entity, as it stands. */
  entityPrivileges(caller: Caller, urn: string): Promise<EntityPrivileges>;
  /** The URNs among `urns` the caller may read (VIEW_ENTITY_PAGE). */
  readable(caller: Caller, urns: readonly string[]): Promise<Set<string>>;
  /** Refuses, naming the privilege and the entity, when the caller may not read one of them. */
  requireRead(caller: Caller, urns: readonly string[]): Promise<void>;
}
