/** Who a signed-in person is, from their verified claims (issue #30). */
import { loadConfig, ConfigError } from '../../src/config.js';
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
    expect(personOfClaims({ sub: 'x', email: 'x@example.com', groups: ['contractors'] }, strict)).toEqual({
      ok: false,
      reason: 'urn:li:corpuser:x@example.com has groups contractors, and none is given a scope (OIDC_GROUP_SCOPES); ask an administrator to add you to a group that is',
    });
  });

  test('is refused when the id cannot be an actor urn', () => {
    expect(personOfClaims({ sub: 'has space' }, rules)).toMatchObject({ ok: false, reason: expect.stringContaining('contains spaces') });
    expect(personOfClaims({ sub: 'a(b' }, rules)).toMatchObject({ ok: false, reason: expect.stringContaining('does not make a valid urn') });
    expect(personOfClaims({}, rules)).toMatchObject({ ok: false, reason: expect.stringContaining('no subject') });
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
