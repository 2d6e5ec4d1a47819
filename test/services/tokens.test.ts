/**
 * Access tokens at the service (docs/contract.md §10, docs/security.md): a token is
 * random, shown once, stored hashed, scoped, revocable at once and may expire; the
 * bootstrap admin token comes from ROOT_TOKEN or is generated once. In process, on a
 * real PostgreSQL.
 */
import { NotFoundError, ValidationError } from '../../src/domain/errors.js';
import { ADMIN, startTestRuntime, type TestRuntime } from '../support/runtime.js';
import { rejection } from '../support/serviceCatalog.js';
import { withClient } from '../support/storedValues.js';
import { waitFor } from '../support/waitFor.js';

let runtime: TestRuntime;
let seq = 0;
const name = () => `svc-token-${++seq}`;

beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(async () => {
  await runtime?.stop();
});

const tokens = () => runtime.services.tokens;

test('create answers the secret once with the metadata; authenticate turns the secret into a caller of its scope', async () => {
  const n = name();
  const created = await tokens().create(ADMIN, { name: n, scope: 'write', description: 'loader' });
  expect(created.token).toMatch(/^pgt_/);
  expect(created.metadata).toMatchObject({ name: n, scope: 'write', description: 'loader', createdBy: ADMIN.actor, revoked: false, expiresAt: null });
  expect(await tokens().authenticate(created.token)).toEqual({ ok: true, caller: expect.objectContaining({ actor: `urn:li:corpuser:__service_${n}`, scope: 'write', tokenId: created.metadata.id }) });
});

test('two tokens never share a secret, and the database holds only a hash of it', async () => {
  const [a, b] = [await tokens().create(ADMIN, { name: name(), scope: 'read' }), await tokens().create(ADMIN, { name: name(), scope: 'read' })];
  expect(a.token).not.toBe(b.token);
  const stored = await withClient(runtime.databaseUrl, (c) => c.query('SELECT token_hash FROM access_token WHERE id = $1', [a.metadata.id]));
  expect(stored.rows[0].token_hash).not.toContain(a.token);
  const everything = await withClient(runtime.databaseUrl, (c) => c.query('SELECT row_to_json(t)::text AS row FROM access_token t'));
  expect(everything.rows.map((r) => r.row).join('\n')).not.toContain(a.token);
});

test('list shows every token metadata and never a secret', async () => {
  const created = await tokens().create(ADMIN, { name: name(), scope: 'admin' });
  const listed = await tokens().list(ADMIN);
  expect(listed.find((t) => t.id === created.metadata.id)).toEqual(created.metadata);
  expect(JSON.stringify(listed)).not.toContain(created.token);
});

test('a secret that was never issued is refused', async () => {
  expect(await tokens().authenticate('pgt_this-token-was-never-issued-xxxxxxxxxxxx')).toEqual({ ok: false, reason: 'Invalid access token' });
});

test('revoke takes effect at once, even for a secret just authenticated (cached); an unknown id is a NotFoundError', async () => {
  const created = await tokens().create(ADMIN, { name: name(), scope: 'read' });
  expect((await tokens().authenticate(created.token)).ok).toBe(true);
  expect(await tokens().revoke(ADMIN, created.metadata.id)).toBe(true);
  expect(await tokens().authenticate(created.token)).toEqual({ ok: false, reason: 'Access token has been revoked' });
  expect((await tokens().list(ADMIN)).find((t) => t.id === created.metadata.id)!.revoked).toBe(true);
  await rejection(tokens().revoke(ADMIN, 'no-such-token'), NotFoundError);
});

test('a token stops working when it expires', async () => {
  const created = await tokens().create(ADMIN, { name: name(), scope: 'read', expiresAt: Date.now() + 1500 });
  expect((await tokens().authenticate(created.token)).ok).toBe(true);
  await waitFor('the token to expire', 10_000, async () => ((await tokens().authenticate(created.token)).ok ? undefined : true), 100);
  expect(await tokens().authenticate(created.token)).toEqual({ ok: false, reason: 'Access token has expired' });
});

test.each<[string, Record<string, unknown>, string]>([
  ['no name', { name: ' ', scope: 'read' }, 'name'],
  ['a name with control characters', { name: 'bad\u0007name', scope: 'read' }, 'name'],
  ['an unknown scope', { name: 'x', scope: 'root' }, 'scope'],
  ['a description with U+0000', { name: 'x', scope: 'read', description: 'a\u0000b' }, 'description'],
  ['an expiry in the past', { name: 'x', scope: 'read', expiresAt: Date.now() - 1000 }, 'expiresAt'],
  ['an expiry that is not a time', { name: 'x', scope: 'read', expiresAt: Number.POSITIVE_INFINITY }, 'expiresAt'],
])('%s is a ValidationError naming the field, and no token is made', async (_label, input, field) => {
  const before = (await tokens().list(ADMIN)).length;
  expect((await rejection(tokens().create(ADMIN, input as never), ValidationError)).field).toBe(field);
  expect(await tokens().list(ADMIN)).toHaveLength(before);
});

describe('the bootstrap admin token', () => {
  test('the first start generated one (no admin token existed); while a usable one exists, no other is generated', async () => {
    const root = (await tokens().list(ADMIN)).find((t) => t.id === 'root');
    expect(root).toMatchObject({ scope: 'admin', createdBy: 'bootstrap', revoked: false });
    expect(await tokens().ensureRootToken(undefined)).toBeUndefined();
  });

  test('ROOT_TOKEN becomes the admin token, replacing the generated one', async () => {
    expect(await tokens().ensureRootToken('configured-root-secret')).toBeUndefined();
    expect(await tokens().authenticate('configured-root-secret')).toEqual({ ok: true, caller: expect.objectContaining({ actor: 'urn:li:corpuser:__service_root', scope: 'admin', tokenId: 'root' }) });
  });

  test('once every admin token is revoked, a new root secret is generated and returned', async () => {
    for (const t of await tokens().list(ADMIN)) if (t.scope === 'admin' && !t.revoked) await tokens().revoke(ADMIN, t.id);
    const secret = await tokens().ensureRootToken(undefined);
    expect(secret).toMatch(/^pgt_/);
    expect(await tokens().authenticate(secret!)).toMatchObject({ ok: true, caller: { scope: 'admin' } });
  });
});
