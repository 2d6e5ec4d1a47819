/**
 * Console sessions at the service (issue #41; docs/security.md, Browser sessions), on a
 * real PostgreSQL: a session opened with an access token acts as that token's
 * principal, never above its scope, and ends when it ends (revoked, expired, lowered);
 * ending a session needs its secret and touches nothing else.
 */
import { ValidationError } from '../../src/domain/errors.js';
import type { Person } from '../../src/domain/person.js';
import { createLogger } from '../../src/platform/logger.js';
import { DefaultBrowserSessionService } from '../../src/services/browserSessions.js';
import { isPerson, type Caller } from '../../src/services/caller.js';
import { DefaultTokenService } from '../../src/services/tokenService.js';
import { rejection } from '../support/serviceCatalog.js';
import { openStoreDatabase, type StoreDatabase } from '../support/storeDatabase.js';
import { waitFor } from '../support/waitFor.js';

const HOUR = 3_600_000;
const bea: Person = { urn: 'urn:li:corpuser:bea@example.com', scope: 'write', groups: ['stewards'], name: 'Bea' };

let store: StoreDatabase;
let tokens: DefaultTokenService;
let sessions: DefaultBrowserSessionService;
let root: Caller;

async function callerOf(secret: string): Promise<Caller> {
  const result = await tokens.authenticate(secret);
  if (!result.ok) throw new Error(`token refused: ${result.reason}`);
  return result.caller;
}

const refusal = async (secret: string) => {
  const result = await tokens.authenticate(secret);
  return result.ok ? 'accepted' : result.reason;
};

beforeAll(async () => {
  store = await openStoreDatabase('browser_sessions');
  tokens = new DefaultTokenService({ db: store.db, log: createLogger('silent') });
  sessions = new DefaultBrowserSessionService({ tokens, tokenSessionHours: 12 });
  await tokens.ensureRootToken('pgt_root_for_browser_sessions');
  root = await callerOf('pgt_root_for_browser_sessions');
}, 60_000);

afterAll(async () => {
  await store?.close();
});

test('a session opened with a machine token acts as that machine, with its scope, for CONSOLE_SESSION_HOURS at most', async () => {
  const loader = await tokens.create(root, { name: 'console-loader', scope: 'write' });
  const before = Date.now();
  const session = await sessions.open(await callerOf(loader.token));
  expect(session.metadata).toMatchObject({ type: 'session', owner: 'urn:li:corpuser:__service_console-loader', principal: 'urn:li:corpuser:__service_console-loader', scope: 'write', parentId: loader.metadata.id });
  expect(session.metadata.expiresAt! - before).toBeLessThanOrEqual(12 * HOUR + 5000);
  expect(session.metadata.expiresAt! - before).toBeGreaterThanOrEqual(12 * HOUR - 1000);
  const caller = await callerOf(session.token);
  expect(caller).toMatchObject({ actor: 'urn:li:corpuser:__service_console-loader', scope: 'write', tokenKind: 'session', tokenId: session.metadata.id });
  // A session is not what makes a person: this one is the machine's.
  expect(isPerson(caller)).toBe(false);
});

test('a session never outlives the token it was opened with', async () => {
  const brief = await tokens.create(root, { name: 'brief', scope: 'read', expiresAt: Date.now() + HOUR });
  const session = await sessions.open(await callerOf(brief.token));
  expect(session.metadata.expiresAt).toBe(brief.metadata.expiresAt);
  await store.query("UPDATE access_token SET expires_on = now() - interval '1 second' WHERE id = $1", [brief.metadata.id]);
  // Another replica's change: seen once this server's cached verification runs out.
  const reason = 'The access token this session was opened with has expired';
  expect(await waitFor('the session to end with its token', 10_000, async () => ((await refusal(session.token)) === reason ? reason : undefined))).toBe(reason);
});

test('revoking the token ends the sessions opened with it, at once on this server', async () => {
  const ops = await tokens.create(root, { name: 'ops', scope: 'admin' });
  const session = await sessions.open(await callerOf(ops.token));
  expect(await refusal(session.token)).toBe('accepted');
  await tokens.revoke(root, ops.metadata.id);
  expect(await refusal(session.token)).toBe('The access token this session was opened with has been revoked');
});

test('a session opened with a person’s token acts as the person, and follows their scope down when their groups give less', async () => {
  const signedIn = await tokens.issueSignInToken({ person: bea, name: 'propgraph login', lifetimeMs: 30 * 24 * HOUR });
  const personal = await tokens.create(await callerOf(signedIn.token), { name: 'bea notebook', scope: 'write' });
  const session = await sessions.open(await callerOf(personal.token));
  const caller = await callerOf(session.token);
  expect(caller).toMatchObject({ actor: bea.urn, scope: 'write', tokenKind: 'session' });
  expect(isPerson(caller)).toBe(true);
  // Bea signs in again with read only: her personal token is lowered, and the session with it.
  await tokens.issueSignInToken({ person: { ...bea, scope: 'read' }, name: 'console sign-in', lifetimeMs: HOUR });
  expect(await waitFor('the session to follow the token down', 10_000, async () => ((await callerOf(session.token)).scope === 'read' ? true : undefined))).toBe(true);
  expect(await callerOf(session.token)).toMatchObject({ actor: bea.urn, scope: 'read' });
});

test('ending a session needs its secret; it ends only that session, and nothing that is not one', async () => {
  const kiosk = await tokens.create(root, { name: 'kiosk', scope: 'read' });
  const kioskCaller = await callerOf(kiosk.token);
  const [first, second] = [await sessions.open(kioskCaller), await sessions.open(kioskCaller)];
  expect(await sessions.end(first.token)).toBe(true);
  expect(await refusal(first.token)).toBe('Access token has been revoked');
  expect(await refusal(second.token)).toBe('accepted');
  expect(await sessions.end(first.token)).toBe(false);
  // A machine token's secret is not a session: signing out with it revokes nothing.
  expect(await sessions.end(kiosk.token)).toBe(false);
  expect(await refusal(kiosk.token)).toBe('accepted');
  expect(await sessions.end('pgt_never_issued')).toBe(false);
});

test('without a token (authentication off) there is no session to open', async () => {
  await rejection((async () => sessions.open({ actor: 'urn:li:corpuser:__local', scope: 'admin' }))(), ValidationError);
});

