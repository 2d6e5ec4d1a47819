/** Who a signed-in person is, from their verified claims (issue #30). */
import { loadConfig, ConfigError } from '../../src/platform/config.js';
import { claimAt, parseGroupScopes, personOfClaims, scopeOfGroups, type PersonRules } from '../../src/domain/person.js';

const rules: PersonRules = { userClaim: 'email', groupsClaim: 'groups', groupScopes: parseGroupScopes('admins:admin,stewards:write,*:read') };

describe('OIDC_GROUP_SCOPES', () => {
  test('reads group:scope pairs, scopes in any case', () => {
    expect(parseGroupScopes(' admins:ADMIN , stewards:write,*:read')).toEqual([
      { group: 'admins', scope: 'admin' },
      { group: 'stewards', scope: 'write' },
      { group: '*', scope: 'read' },
    ]);
  });

  test('a group name may hold colons: the scope follows the last one', () => {
    expect(parseGroupScopes('app:data:stewards:write')).toEqual([{ group: 'app:data:stewards', scope: 'write' }]);
  });

  test.each([['admins'], ['admins:owner'], [':read'], [',']])('refuses %j, naming it', (text) => {
    expect(() => parseGroupScopes(text)).toThrow(/group:scope|names no group/);
  });

  test('the largest scope of any matching group wins; * matches everyone', () => {
    expect(scopeOfGroups(['stewards', 'admins'], rules.groupScopes)).toBe('admin');
    expect(scopeOfGroups(['stewards'], rules.groupScopes)).toBe('write');
    expect(scopeOfGroups([], rules.groupScopes)).toBe('read');
    expect(scopeOfGroups(['others'], parseGroupScopes('admins:admin'))).toBeUndefined();
  });
});

describe('the person behind the claims', () => {
  test('is urn:li:corpuser:<email>, with the scope of their groups', () => {
    expect(personOfClaims({ sub: 's1', email: 'ann@example.com', email_verified: true, groups: ['stewards'], name: 'Ann' }, rules)).toEqual({
      ok: true,
      person: { urn: 'urn:li:corpuser:ann@example.com', scope: 'write', groups: ['stewards'], name: 'Ann' },
    });
  });

  test('is named by the subject when there is no email, or the provider says it is unverified', () => {
    expect(personOfClaims({ sub: 'auth0|42' }, rules)).toMatchObject({ ok: true, person: { urn: 'urn:li:corpuser:auth0|42' } });
    expect(personOfClaims({ sub: 'auth0|43', email: 'boss@example.com', email_verified: false }, rules)).toMatchObject({ ok: true, person: { urn: 'urn:li:corpuser:auth0|43' } });
  });

  test('reads the groups claim by exact name or by a dotted path, as a list or a single name', () => {
    const keycloak: PersonRules = { ...rules, groupsClaim: 'realm_access.roles' };
    expect(personOfClaims({ sub: 'k', realm_access: { roles: ['admins'] } }, keycloak)).toMatchObject({ person: { scope: 'admin' } });
    const auth0: PersonRules = { ...rules, groupsClaim: 'https://example.com/groups' };
    expect(personOfClaims({ sub: 'a', 'https://example.com/groups': 'stewards' }, auth0)).toMatchObject({ person: { scope: 'write' } });
    expect(claimAt({ a: { b: 1 } }, 'a.c')).toBeUndefined();
  });

  test('is refused when no group is given a scope, saying which groups they have', () => {
    const strict: PersonRules = { ...rules, groupScopes: parseGroupScopes('admins:admin') };
    expect(personOfClaims({ sub: 'x', email: 'x@example.com', email_verified: true, groups: ['contractors'] }, strict)).toEqual({
      ok: false,
      reason: 'urn:li:corpuser:x@example.com has groups contractors, and none is given a scope (OIDC_GROUP_SCOPES); ask an administrator to add you to a group that is',
    });
  });

  test('is refused when the id cannot be an actor urn', () => {
    expect(personOfClaims({ sub: 'has space' }, rules)).toMatchObject({ ok: false, reason: expect.stringContaining('holds a character other than letters, digits') });
    expect(personOfClaims({ sub: 'a(b' }, rules)).toMatchObject({ ok: false, reason: expect.stringContaining('(the sub claim) holds a character other than') });
    expect(personOfClaims({}, rules)).toMatchObject({ ok: false, reason: expect.stringContaining('no subject') });
  });
});

describe('claims are read strictly (issue #46, items 5 and 10)', () => {
  // Each of these named alice@example.com before: anyone could type Alice's address at a provider that does not verify it.
  test.each([
    ['the text "false"', { email_verified: 'false' }],
    ['the text "true"', { email_verified: 'true' }],
    ['no email_verified at all', {}],
    ['null', { email_verified: null }],
    ['the number 1', { email_verified: 1 }],
  ])('an email the provider vouches for with %s does not name the person: the subject does', (_label, verified) => {
    expect(personOfClaims({ sub: 'mallory-sub', email: 'alice@example.com', ...verified }, rules)).toMatchObject({ ok: true, person: { urn: 'urn:li:corpuser:mallory-sub' } });
  });

  test('only email_verified: true lets the email name the person', () => {
    expect(personOfClaims({ sub: 's', email: 'alice@example.com', email_verified: true }, rules)).toMatchObject({ ok: true, person: { urn: 'urn:li:corpuser:alice@example.com' } });
  });

  test.each([
    ['root', 'is not an email address'],
    ['x@example.com,urn:li:corpuser:root', 'is not an email address'],
    ['a@b@example.com', 'is not an email address'],
    ['ann@localhost', 'is not an email address'],
    ['__service_root@example.com', 'is not an email address'],
  ])('a verified email claim %j that is not an email address is refused, not used', (email, reason) => {
    expect(personOfClaims({ sub: 's', email, email_verified: true }, rules)).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });

  test.each([
    ['x@example.com,urn:li:corpuser:root', 'holds a character other than'],
    ['urn:li:corpuser:root', 'holds a character other than'],
    ['__service_root', 'does not begin with a letter or a digit'],
    ['__propgraph_system', 'does not begin with a letter or a digit'],
    ['_x', 'does not begin with a letter or a digit'],
    ['a'.repeat(257), 'is longer than 256 characters'],
  ])('a subject (or other user claim) %j that is not a plain identifier is refused', (id, reason) => {
    expect(personOfClaims({ sub: id }, rules)).toEqual({ ok: false, reason: expect.stringContaining(reason) });
    expect(personOfClaims({ sub: 's', preferred_username: id }, { ...rules, userClaim: 'preferred_username' })).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });

  test("providers' subjects and people's addresses stay plain identifiers", () => {
    for (const id of ['auth0|5f7c8ec7c33c6c004bbafe82', 'google-oauth2|1234567890', '00u1abcd2EFGH3ijk4x7', 'f47ac10b-58cc-4372-a567-0e02b2c3d479', 'CiQwOGE4Njg0Yi1kYjg4LTRiNzMtOTBhOS0zY2QxNjYxZjU0NjYSBWxvY2Fs']) {
      expect(personOfClaims({ sub: id }, rules)).toMatchObject({ ok: true, person: { urn: `urn:li:corpuser:${id}` } });
    }
    for (const email of ["o'neil@example.com", 'ann.lee+data@example.co.uk', 'josé@exämple.de']) {
      expect(personOfClaims({ sub: 's', email, email_verified: true }, rules)).toMatchObject({ ok: true, person: { urn: `urn:li:corpuser:${email}` } });
    }
  });
});

describe('OIDC configuration', () => {
  const base = { OIDC_ISSUER: 'https://id.example.com/realms/acme', OIDC_CLIENT_ID: 'propgraph' };

  test('is off unless OIDC_ISSUER is set', () => {
    expect(loadConfig({}).oidc).toBeUndefined();
  });

  test('has defaults for everything but the issuer and client id', () => {
    expect(loadConfig(base).oidc).toEqual({
      issuer: 'https://id.example.com/realms/acme',
      clientId: 'propgraph',
      clientSecret: undefined,
      providerName: 'id.example.com',
      scopes: 'openid email profile',
      userClaim: 'email',
      groupsClaim: 'groups',
      groupScopes: [{ group: '*', scope: 'read' }],
      redirectUrl: undefined,
      sessionHours: 12,
      cliSessionDays: 30,
    });
  });

  test('always asks for the openid scope', () => {
    expect(loadConfig({ ...base, OIDC_SCOPES: 'email groups' }).oidc?.scopes).toBe('openid email groups');
  });

  test.each([
    [{ OIDC_ISSUER: 'https://id.example.com' }, 'OIDC_ISSUER is set, so OIDC_CLIENT_ID is required'],
    [{ OIDC_CLIENT_ID: 'propgraph', OIDC_GROUP_SCOPES: 'admins:admin' }, 'OIDC_CLIENT_ID, OIDC_GROUP_SCOPES set without OIDC_ISSUER'],
    [{ ...base, OIDC_GROUP_SCOPES: 'admins:root' }, 'OIDC_GROUP_SCOPES "admins:root" is not group:scope'],
    [{ ...base, AUTH_ENABLED: 'false' }, 'OIDC_ISSUER needs AUTH_ENABLED=true'],
    [{ OIDC_ISSUER: 'id.example.com', OIDC_CLIENT_ID: 'x' }, 'OIDC_ISSUER must be an http(s) URL'],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
