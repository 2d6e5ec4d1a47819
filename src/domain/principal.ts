/**
 * Principals: who acts (docs/contract.md §10; docs/decisions.md, "People and machines are
 * different principals"). Every actor is a corpuser urn, and its namespace is read from
 * the id alone, so history, audit and the console can tell a person from a machine
 * without looking anything up:
 *
 *   person   urn:li:corpuser:<sub or email>        an id that begins with a letter or a digit
 *   machine  urn:li:corpuser:__service_<name>      a machine token's name behind the prefix
 *   system   urn:li:corpuser:__<anything else>     propgraph's own work, DataHub's __datahub_system
 *
 * A person's id is a plain identifier (this module's `plainIdProblem`), which never
 * begins with `_`: no person can have a machine's or the system's principal, whatever
 * their provider sends. Pure.
 */

export const PRINCIPAL_KINDS = ['person', 'machine', 'system'] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

const CORPUSER = 'urn:li:corpuser:';
/**
 * DataHub marks its own non-person principal with `__` (`__datahub_system`) and names its
 * service accounts `service_<name>`; both together make a namespace a person's id cannot
 * enter (docs/decisions.md gives the reasons).
 */
export const MACHINE_PREFIX = '__service_';
/** The bootstrap admin token's name (ROOT_TOKEN, or the generated one); no other token may take it. */
export const ROOT_TOKEN_NAME = 'root';
/** The longest principal id accepted (the actor is recorded on every write). */
export const MAX_PRINCIPAL_ID_LENGTH = 256;

/**
 * Letters and digits of any script, and the punctuation emails and providers' subjects
 * use (`auth0|42`, `o'neil@example.com`, base64url subjects); first a letter or a digit.
 * No `:`, `,`, parentheses, spaces or slashes: an id never reads as a urn, a list or a path.
 */
const PLAIN_ID = /^[\p{L}\p{N}][\p{L}\p{M}\p{N}._@+|~'=-]*$/u;

/** Why `id` is not a plain identifier; undefined when it is one. */
export function plainIdProblem(id: string): string | undefined {
  if (id === '') return 'is empty';
  if (id.length > MAX_PRINCIPAL_ID_LENGTH) return `is longer than ${MAX_PRINCIPAL_ID_LENGTH} characters`;
  if (!PLAIN_ID.test(id)) {
    return /^[\p{L}\p{N}]/u.test(id)
      ? "holds a character other than letters, digits and . _ - @ + | ~ ' ="
      : 'does not begin with a letter or a digit';
  }
  return undefined;
}

/** `local@domain`, each side a plain identifier, one `@`, a dot in the domain. */
export function isEmailAddress(value: string): boolean {
  const at = value.indexOf('@');
  if (at <= 0 || at !== value.lastIndexOf('@')) return false;
  const domain = value.slice(at + 1);
  return plainIdProblem(value) === undefined && /^[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)+$/u.test(domain);
}

export function personPrincipal(id: string): string {
  return `${CORPUSER}${id}`;
}

/** The principal a machine token acts as. */
export function machinePrincipal(tokenName: string): string {
  return `${CORPUSER}${MACHINE_PREFIX}${tokenName}`;
}

/** Which namespace an actor urn is in; an actor that is not a corpuser is the system's. */
export function principalKindOf(actor: string): PrincipalKind {
  if (!actor.startsWith(CORPUSER)) return 'system';
  const id = actor.slice(CORPUSER.length);
  if (id.startsWith(MACHINE_PREFIX)) return 'machine';
  return id.startsWith('_') ? 'system' : 'person';
}

/** How a header names an actor: a person by their id, a machine by its token's name, the system by its id. */
export function displayNameOf(actor: string): string {
  const id = actor.startsWith(CORPUSER) ? actor.slice(CORPUSER.length) : actor;
  return id.startsWith(MACHINE_PREFIX) ? id.slice(MACHINE_PREFIX.length) : id;
}
