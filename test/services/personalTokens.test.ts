/**
 * People's tokens (issue #30), at the service on a real PostgreSQL: a signed-in person
 * issues personal tokens up to their own scope, lists and revokes their own; an admin
 * sees and revokes all; machine tokens act as before. Each token acts as its owner.
 */
import { DEFAULT_POLICIES } from '../../src/domain/policies/defaults.js';
import { PrincipalPolicies } from '../../src/domain/policies/evaluate.js';
import { ForbiddenError, ValidationError } from '../../src/domain/errors.js';
import type { Person } from '../../src/domain/person.js';
import { createLogger } from '../../src/platform/logger.js';
import { AuthorizedTokenService } from '../../src/services/authorizedServices.js';
import type { Caller } from '../../src/services/caller.js';
import { privilegesOf } from '../../src/services/privileges.js';
import { DefaultTokenService } from '../../src/services/tokenService.js';
import { openStoreDatabase, type StoreDatabase } from '../support/storeDatabase.js';

const HOUR = 3_600_000;
const person = (id: string, scope: Person['scope']): Person => ({ urn: `urn:li:corpuser:${id}@example.com`, scope, groups: [], name: id });

let store: StoreDatabase;
let inner: DefaultTokenService;
let tokens: AuthorizedTokenService;
let root: Caller;

/** The caller a token's secret authenticates as. */
async function callerOf(secret: string): Promise<Caller> {
  const result = await tokens.authenticate(secret);
  if (!result.ok) throw new Error(`token refused: ${result.reason}`);
  return result.caller;
}

/** A person signed in: the caller their session token authenticates as. */
async function signIn(p: Person): Promise<Caller> {
  const session = await inner.issueSignInToken({ person: p, name: 'console sign-in', lifetimeMs: 12 * HOUR });
  return callerOf(session.token);
}

beforeAll(async () => {
  store = await openStoreDatabase('personal_tokens');
  inner = new DefaultTokenService({ db: store.db, log: createLogger('silent') });
  tokens = new AuthorizedTokenService(inner);
  const rootSecret = 'pgt_root_for_personal_tokens';
  await inner.ensureRootToken(rootSecret);
  root = await callerOf(rootSecret);
}, 60_000);

afterAll(async () => {
  await store?.close();
});

describe('sign-in tokens', () => {
  test('act as the person, with the scope their groups give, for the lifetime asked', async () => {
    const before = Date.now();
    const session = await inner.issueSignInToken({ person: person('sam', 'write'), name: 'console sign-in', lifetimeMs: 12 * HOUR });
    expect(session.metadata).toMatchObject({ type: 'session', owner: 'urn:li:corpuser:sam@example.com', createdBy: 'urn:li:corpuser:sam@example.com', scope: 'write' });
    expect(session.metadata.expiresAt! - before).toBeGreaterThanOrEqual(12 * HOUR - 1000);
    expect(session.metadata.expiresAt! - before).toBeLessThanOrEqual(12 * HOUR + 5000);
    expect(await callerOf(session.token)).toMatchObject({ actor: 'urn:li:corpuser:sam@example.com', scope: 'write', tokenKind: 'session' });
  });

  test('a machine token acts as urn:li:corpuser:__service_<name> (test/services/principals.test.ts)', async () => {
    const machine = await tokens.create(root, { name: 'loader', scope: 'write' });
    expect(machine.metadata).toMatchObject({ type: 'machine', owner: null, createdBy: 'urn:li:corpuser:__service_root', principal: 'urn:li:corpuser:__service_loader' });
    expect(await callerOf(machine.token)).toMatchObject({ actor: 'urn:li:corpuser:__service_loader', scope: 'write', tokenKind: 'machine' });
  });
});

describe('personal tokens', () => {
  test('a person issues one for themselves; it acts as them and names them as creator', async () => {
    const pat = await signIn(person('pia', 'write'));
    const created = await tokens.create(pat, { name: 'my notebook', scope: 'write' });
    expect(created.metadata).toMatchObject({ type: 'personal', owner: 'urn:li:corpuser:pia@example.com', createdBy: 'urn:li:corpuser:pia@example.com', scope: 'write' });
    expect(await callerOf(created.token)).toMatchObject({ actor: 'urn:li:corpuser:pia@example.com', scope: 'write', tokenKind: 'personal' });
  });

  test('never above the person’s own scope', async () => {
    const reader = await signIn(person('rita', 'read'));
    await expect(async () => tokens.create(reader, { name: 'too much', scope: 'write' })).rejects.toThrow(ForbiddenError);
    await expect(async () => tokens.create(reader, { name: 'too much', scope: 'write' })).rejects.toThrow(/cannot have more than its owner's scope: urn:li:corpuser:rita@example.com has read scope/);
    expect((await tokens.create(reader, { name: 'enough', scope: 'read' })).metadata.scope).toBe('read');
  });

  test('a person without admin cannot issue machine tokens; an admin person can, and is named as creator', async () => {
    const writer = await signIn(person('will', 'write'));
    await expect(async () => tokens.create(writer, { name: 'svc', scope: 'read', type: 'machine' })).rejects.toThrow(ForbiddenError);
    const admin = await signIn(person('ada', 'admin'));
    const machine = await tokens.create(admin, { name: 'nightly-load', scope: 'write', type: 'machine' });
    expect(machine.metadata).toMatchObject({ type: 'machine', owner: null, createdBy: 'urn:li:corpuser:ada@example.com' });
    expect(await callerOf(machine.token)).toMatchObject({ actor: 'urn:li:corpuser:__service_nightly-load' });
  });

  test('a machine token cannot issue personal tokens, and nobody issues session tokens', async () => {
    await expect(async () => tokens.create(root, { name: 'x', scope: 'read', type: 'personal' })).rejects.toThrow(ValidationError);
    const admin = await signIn(person('ada2', 'admin'));
    await expect(async () => tokens.create(admin, { name: 'x', scope: 'read', type: 'session' })).rejects.toThrow(/type must be personal or machine/);
  });

  test('a person lists only their own tokens; an admin lists every token', async () => {
    const lee = await signIn(person('lee', 'write'));
    await tokens.create(lee, { name: 'lee script', scope: 'read' });
    const mine = await tokens.list(lee);
    expect(mine.length).toBe(2);
    expect(new Set(mine.map((t) => t.owner))).toEqual(new Set(['urn:li:corpuser:lee@example.com']));
    expect(mine.map((t) => t.type).sort()).toEqual(['personal', 'session']);
    const all = await tokens.list(root);
    expect(all.some((t) => t.owner === 'urn:li:corpuser:lee@example.com')).toBe(true);
    expect(all.some((t) => t.id === 'root')).toBe(true);
  });

  test('a machine token without admin still may not list or revoke tokens', async () => {
    const reader = await callerOf((await tokens.create(root, { name: 'dashboard', scope: 'read' })).token);
    await expect(async () => tokens.list(reader)).rejects.toThrow(ForbiddenError);
    await expect(async () => tokens.revoke(reader, 'root')).rejects.toThrow(ForbiddenError);
  });

  test('a person revokes their own tokens, not someone else’s; an admin revokes anyone’s', async () => {
    const kim = await signIn(person('kim', 'write'));
    const joe = await signIn(person('joe', 'write'));
    const kims = await tokens.create(kim, { name: 'kim script', scope: 'write' });
    await expect(async () => tokens.revoke(joe, kims.metadata.id)).rejects.toThrow(/is not yours/);
    expect((await tokens.authenticate(kims.token)).ok).toBe(true);
    await tokens.revoke(kim, kims.metadata.id);
    expect(await tokens.authenticate(kims.token)).toEqual({ ok: false, reason: 'Access token has been revoked' });
    const joes = await tokens.create(joe, { name: 'joe script', scope: 'read' });
    await tokens.revoke(root, joes.metadata.id);
    expect((await tokens.authenticate(joes.token)).ok).toBe(false);
  });

  test('signing in with a smaller scope lowers the person’s tokens to it, sessions included', async () => {
    const firstSession = await inner.issueSignInToken({ person: person('dee', 'admin'), name: 'console sign-in', lifetimeMs: HOUR });
    const dee = await callerOf(firstSession.token);
    const pat = await tokens.create(dee, { name: 'dee admin script', scope: 'admin' });
    const readPat = await tokens.create(dee, { name: 'dee read script', scope: 'read' });
    // Dee left the admins group; her next sign-in says so.
    await signIn(person('dee', 'write'));
    expect(await callerOf(pat.token)).toMatchObject({ actor: 'urn:li:corpuser:dee@example.com', scope: 'write' });
    expect((await callerOf(firstSession.token)).scope).toBe('write');
    expect((await callerOf(readPat.token)).scope).toBe('read');
  });

  test('the privileges a client is shown follow the same rules (under the shipped policies)', () => {
    const shown = (caller: Caller) => privilegesOf(caller, new PrincipalPolicies({ actor: caller.actor, groups: [], scope: caller.scope }, DEFAULT_POLICIES));
    const personCaller: Caller = { actor: 'urn:li:corpuser:p@example.com', scope: 'read', tokenKind: 'session' };
    expect(shown(personCaller)).toMatchObject({ manageTokens: false, managePersonalTokens: true });
    expect(shown({ ...personCaller, scope: 'admin' })).toMatchObject({ manageTokens: true, managePersonalTokens: true });
    expect(shown({ actor: 'urn:li:corpuser:ci', scope: 'admin', tokenKind: 'machine' })).toMatchObject({ manageTokens: true, managePersonalTokens: false });
    expect(shown({ actor: 'urn:li:corpuser:ci', scope: 'write', tokenKind: 'machine' })).toMatchObject({ manageTokens: false, managePersonalTokens: false });
  });
});
