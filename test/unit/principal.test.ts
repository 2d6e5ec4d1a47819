/** People and machines are different principals (issue #39, item 6): the namespaces, read from the urn alone. */
import fc from 'fast-check';
import { parseMachineTokenName } from '../../src/domain/accessToken.js';
import { ValidationError } from '../../src/domain/errors.js';
import { displayNameOf, isEmailAddress, machinePrincipal, plainIdProblem, principalKindOf } from '../../src/domain/principal.js';
import { personOfClaims, parseGroupScopes } from '../../src/domain/person.js';
import { thrown } from './thrown.js';

describe('the namespace of an actor', () => {
  test.each([
    ['urn:li:corpuser:ana@example.com', 'person'],
    ['urn:li:corpuser:auth0|42', 'person'],
    ['urn:li:corpuser:datahub', 'person'],
    ['urn:li:corpuser:__service_ana-loader', 'machine'],
    ['urn:li:corpuser:__service_root', 'machine'],
    ['urn:li:corpuser:__propgraph_system', 'system'],
    ['urn:li:corpuser:__datahub_system', 'system'],
    ['urn:li:corpuser:__local', 'system'],
    ['unknown', 'system'],
  ])('%s is a %s', (urn, kind) => {
    expect(principalKindOf(urn)).toBe(kind);
  });

  test('a header names a machine by its token’s name, anyone else by their id', () => {
    expect(displayNameOf('urn:li:corpuser:__service_root')).toBe('root');
    expect(displayNameOf('urn:li:corpuser:ana@example.com')).toBe('ana@example.com');
    expect(displayNameOf('urn:li:corpuser:__local')).toBe('__local');
  });

  test('a machine token acts in the machine namespace', () => {
    expect(machinePrincipal('nightly-loader')).toBe('urn:li:corpuser:__service_nightly-loader');
    expect(principalKindOf(machinePrincipal('nightly-loader'))).toBe('machine');
  });

  test('no claims a provider sends give a person a machine’s or the system’s principal', () => {
    const rules = { userClaim: 'email', groupsClaim: 'groups', groupScopes: parseGroupScopes('*:read') };
    for (const id of ['__service_root', '__propgraph_system', '_x', ' __service_root', '\u200b__service_root']) {
      for (const claims of [{ sub: id }, { sub: 's', email: id, email_verified: true }, { sub: 's', email: `${id}@example.com`, email_verified: true }]) {
        const outcome = personOfClaims(claims, rules);
        if (outcome.ok) expect(principalKindOf(outcome.person.urn)).toBe('person');
      }
    }
  });
});

describe('plain identifiers', () => {
  test.each(['ana', 'ana@example.com', 'auth0|42', "o'neil", 'a.b_c-d+e~f=', 'Ünïcödé', '42'])('%j is one', (id) => {
    expect(plainIdProblem(id)).toBeUndefined();
  });

  test.each([
    ['', 'is empty'],
    ['_x', 'does not begin with a letter or a digit'],
    ['-x', 'does not begin with a letter or a digit'],
    ['a b', 'holds a character other than'],
    ['a,b', 'holds a character other than'],
    ['a:b', 'holds a character other than'],
    ['a(b)', 'holds a character other than'],
    ['a/b', 'holds a character other than'],
    ['a\u0000', 'holds a character other than'],
  ])('%j is not: it %s', (id, problem) => {
    expect(plainIdProblem(id)).toContain(problem);
  });

  test('an email address is local@domain with a dot in the domain', () => {
    expect(isEmailAddress('ana@example.com')).toBe(true);
    expect(isEmailAddress('ana@example')).toBe(false);
    expect(isEmailAddress('@example.com')).toBe(false);
    expect(isEmailAddress('ana@@example.com')).toBe(false);
    expect(isEmailAddress('ana@example..com')).toBe(false);
  });
});

describe('machine token names', () => {
  test('a plain name is its own', () => {
    expect(parseMachineTokenName(' nightly-loader ')).toBe('nightly-loader');
  });

  test.each([
    ['ana@example.com', "is an email address, the form of a person's principal"],
    ['root', "is the root token's"],
    ['ROOT', "is the root token's"],
    ['x,urn:li:corpuser:root', 'holds a character other than'],
    ['nightly loader', 'holds a character other than'],
    ['__service_x', 'does not begin with a letter or a digit'],
  ])('%j is refused: it %s', (name, reason) => {
    const err = thrown(() => parseMachineTokenName(name));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).field).toBe('name');
    expect((err as Error).message).toContain(reason);
    expect((err as Error).message).toContain('urn:li:corpuser:__service_<name>');
  });
});

describe('generated claims (issue #46, items 5 and 10)', () => {
  const rules = { userClaim: 'email', groupsClaim: 'groups', groupScopes: parseGroupScopes('*:read') };
  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom('root', '__service_root', '__propgraph_system', 'alice@example.com', 'x@example.com,urn:li:corpuser:root', 'urn:li:corpuser:root', ' alice@example.com', 'a@b', '_', ''),
    fc.emailAddress(),
  );
  const anyValue = fc.oneof(text, fc.boolean(), fc.constant(null), fc.integer(), fc.array(text, { maxLength: 2 }));
  const claims = fc.record({ sub: anyValue, email: anyValue, email_verified: anyValue, groups: anyValue }, { requiredKeys: [] });

  test('whatever a provider sends, a person let in is a plain person: never a machine, the system, a list or a urn', () => {
    fc.assert(
      fc.property(claims, (c) => {
        const outcome = personOfClaims(c, rules);
        if (!outcome.ok) return;
        const id = outcome.person.urn.slice('urn:li:corpuser:'.length);
        expect(principalKindOf(outcome.person.urn)).toBe('person');
        expect(plainIdProblem(id)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  test('an email names the person only when email_verified is exactly true', () => {
    fc.assert(
      fc.property(claims, (c) => {
        const outcome = personOfClaims(c, rules);
        if (!outcome.ok || typeof c.email !== 'string' || c.email.trim() === c.sub) return;
        if (outcome.person.urn === `urn:li:corpuser:${c.email.trim()}`) expect(c.email_verified).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  test('a machine token name is refused, or gives a machine principal that no person can have', () => {
    fc.assert(
      fc.property(text, (name) => {
        let accepted: string;
        try {
          accepted = parseMachineTokenName(name);
        } catch (err) {
          expect(err).toBeInstanceOf(ValidationError);
          return;
        }
        expect(principalKindOf(machinePrincipal(accepted))).toBe('machine');
        expect(accepted).not.toContain('@');
      }),
      { numRuns: 2000 },
    );
  });
});
