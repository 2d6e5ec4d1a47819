/**
 * People and machines are different principals (issue #39, item 6; docs/security.md,
 * Principals), at the token service on a real PostgreSQL. A machine token acts as
 * urn:li:corpuser:__service_<name>, which no person's id can be; a name that would
 * pass for a person (an email address) or for the root token is refused. Before, a
 * machine token named ana@example.com acted as urn:li:corpuser:ana@example.com, the
 * principal of the person Ana: history could not tell them apart, and the machine
 * could list and revoke her tokens.
 */
import { ForbiddenError, ValidationError } from '../../src/domain/errors.js';
import type { Person } from '../../src/domain/person.js';
import { principalKindOf } from '../../src/domain/principal.js';
import { createLogger } from '../../src/platform/logger.js';
import { AuthorizedTokenService } from '../../src/services/authorizedServices.js';
import { isPerson, type Caller } from '../../src/services/caller.js';
import { DefaultTokenService } from '../../src/services/tokenService.js';
import { hashToken, newTokenSecret } from '../../src/domain/accessToken.js';
import { insertToken } from '../../src/store/accessTokens.js';
import { openStoreDatabase, type StoreDatabase } from '../support/storeDatabase.js';
import { rejection } from '../support/serviceCatalog.js';

const HOUR = 3_600_000;
const ana: Person = { urn: 'urn:li:corpuser:ana@example.com', scope: 'write', groups: ['stewards'], name: 'Ana' };

let store: StoreDatabase;
let inner: DefaultTokenService;
let tokens: AuthorizedTokenService;
let root: Caller;

async function callerOf(secret: string): Promise<Caller> {
  const result = await tokens.authenticate(secret);
  if (!result.ok) throw new Error(`token refused: ${result.reason}`);
  return result.caller;
}

beforeAll(async () => {
  store = await openStoreDatabase('principals');
  inner = new DefaultTokenService({ db: store.db, log: createLogger('silent') });
  tokens = new AuthorizedTokenService(inner);
  await inner.ensureRootToken('pgt_root_for_principals');
  root = await callerOf('pgt_root_for_principals');
}, 60_000);

afterAll(async () => {
  await store?.close();
});

test('the root token and every machine token act in the machine namespace', async () => {
  expect(root.actor).toBe('urn:li:corpuser:__service_root');
  const loader = await tokens.create(root, { name: 'ana-loader', scope: 'write' });
  const caller = await callerOf(loader.token);
  expect(caller.actor).toBe('urn:li:corpuser:__service_ana-loader');
  expect(principalKindOf(caller.actor)).toBe('machine');
  expect(isPerson(caller)).toBe(false);
});

test.each([
  ['ana@example.com', "is an email address, the form of a person's principal"],
  ['root', "is the root token's"],
  ['ana@example.com,urn:li:corpuser:root', 'holds a character other than'],
  ['__service_ana', 'does not begin with a letter or a digit'],
])('a machine token named %j is refused, naming the field: it %s', async (name, reason) => {
  const before = (await tokens.list(root)).length;
  const err = await rejection(tokens.create(root, { name, scope: 'admin', type: 'machine' }), ValidationError);
  expect(err).toMatchObject({ field: 'name', message: expect.stringContaining(reason) });
  expect(await tokens.list(root)).toHaveLength(before);
});

test('a machine named like a person is not that person: it neither sees nor revokes their tokens', async () => {
  const session = await inner.issueSignInToken({ person: ana, name: 'console sign-in', lifetimeMs: HOUR });
  const anaCaller = await callerOf(session.token);
  const notebook = await tokens.create(anaCaller, { name: 'notebook', scope: 'read' });
  const machine = await tokens.create(root, { name: 'ana', scope: 'write' });
  const machineCaller = await callerOf(machine.token);
  expect(machineCaller.actor).toBe('urn:li:corpuser:__service_ana');
  expect(machineCaller.actor).not.toBe(anaCaller.actor);
  // A person lists and revokes their own tokens; a machine below admin manages none.
  await rejection((async () => tokens.list(machineCaller))(), ForbiddenError);
  await rejection((async () => tokens.revoke(machineCaller, notebook.metadata.id))(), ForbiddenError);
  expect((await tokens.list(anaCaller)).map((t) => t.principal)).toEqual(['urn:li:corpuser:ana@example.com', 'urn:li:corpuser:ana@example.com']);
});

test('a machine token stored before this release keeps working, from now on in the machine namespace, whatever its name', async () => {
  // Written as an earlier release wrote it: a name that is an email address, no prefix, no parent.
  const secret = newTokenSecret();
  await insertToken(store.db, { id: 'legacy-ana', name: 'ana@example.com', description: null, scope: 'write', tokenHash: hashToken(secret), createdBy: 'urn:li:corpuser:root', expiresOn: null, kind: 'machine', owner: null });
  const caller = await callerOf(secret);
  expect(caller.actor).toBe('urn:li:corpuser:__service_ana@example.com');
  expect(principalKindOf(caller.actor)).toBe('machine');
  expect((await tokens.list(root)).find((t) => t.id === 'legacy-ana')).toMatchObject({ type: 'machine', principal: 'urn:li:corpuser:__service_ana@example.com' });
});
