/**
 * The log lines people read (docs/operations.md): one access line per request (method,
 * route pattern, status, ms, principal), one audit line per definition change, delete,
 * token change and job run, naming actor, target and outcome; each line's size bounded
 * whatever the client sends; the access line one line in the pretty format too.
 */
import { Writable } from 'node:stream';
import { enc, http, type HttpResponse } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';

const V3 = '/openapi/v3';
const ROOT_TOKEN = 'logs-suite-root-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${ROOT_TOKEN}` };
const ROOT_ACTOR = 'urn:li:corpuser:__service_root';
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly access?: { method: string; route: string; status: number; ms: number; principal: string; reqId: string };
  readonly audit?: { action: string; actor: string; target: string; outcome: string; detail?: Record<string, unknown> };
}

const raw: string[] = [];
const lines = (): Line[] => raw.map((l) => JSON.parse(l) as Line);
const accessLines = () => lines().filter((l) => l.access);
const auditLines = () => lines().filter((l) => l.audit).map((l) => ({ ...l.audit!, msg: l.msg }));

let server: TestServer;

async function ok(res: Promise<HttpResponse>): Promise<HttpResponse> {
  const r = await res;
  if (r.status !== 200) throw new Error(`expected 200, got ${r.status}: ${r.text}`);
  return r;
}

function defineProperty(urn: string, body: Record<string, unknown> = {}): Promise<HttpResponse> {
  return http(server.url, 'POST', `${V3}/entity/structuredProperty/${enc(urn)}/propertyDefinition`, {
    headers: AUTH,
    query: { createIfNotExists: 'false' },
    json: { value: { qualifiedName: urn.split(':').pop(), valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], ...body } },
  });
}

beforeAll(async () => {
  server = await startTestServer({
    env: { LOG_LEVEL: 'info', AUTH_ENABLED: 'true', ROOT_TOKEN },
    logDestination: { write: (line: string) => void raw.push(line) },
  });
});
afterAll(async () => {
  await server?.stop();
});

describe('access lines', () => {
  test('one per request: method, route pattern (not the URL), status, ms and principal', async () => {
    const urn = ds('logs.access.secret_name');
    const before = accessLines().length;
    await http(server.url, 'GET', `${V3}/entity/dataset/${enc(urn)}`, { headers: AUTH });
    await http(server.url, 'GET', '/health');
    await http(server.url, 'GET', `${V3}/entity/dataset/${enc(urn)}`);
    const added = accessLines().slice(before);
    expect(added).toHaveLength(3);
    const [read, health, refused] = added;
    expect(read!.access).toEqual({ method: 'GET', route: '/openapi/v3/entity/:entityName/:urn', status: 404, ms: expect.any(Number), principal: ROOT_ACTOR, reqId: expect.any(String) });
    expect(read!.msg).toBe(`GET /openapi/v3/entity/:entityName/:urn 404 ${read!.access!.ms} ms ${ROOT_ACTOR}`);
    expect(read!.level).toBe(30);
    expect(health!.access).toMatchObject({ route: '/health', status: 200, principal: '-' });
    expect(refused!.access).toMatchObject({ status: 401, principal: '-' });
    expect(raw.join('\n')).not.toContain('secret_name');
  });

  test('a path no route serves is logged without its text', async () => {
    const before = accessLines().length;
    await http(server.url, 'GET', `/nothing/here/${'x'.repeat(3000)}`, { headers: AUTH });
    const [line] = accessLines().slice(before);
    expect(line!.access).toMatchObject({ method: 'GET', route: '(no route)', status: 404 });
    expect(JSON.stringify(line).length).toBeLessThan(500);
  });
});

describe('audit lines', () => {
  const property = 'urn:li:structuredProperty:logs.audit.tier';

  test('a definition written, refused, soft deleted, restored and hard deleted: each names actor, target and outcome', async () => {
    const before = auditLines().length;
    await ok(defineProperty(property));
    const holder = ds('logs.audit.holder');
    await ok(http(server.url, 'POST', `${V3}/entity/dataset`, { headers: AUTH, json: [{ urn: holder, status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: property, values: [{ string: 'gold' }] }] } } }] }));
    // A breaking change of values stored, without a new version, is refused: audited as refused, with its code.
    expect((await defineProperty(property, { valueType: 'urn:li:dataType:svc.number' })).status).toBe(400);
    await ok(http(server.url, 'POST', `${V3}/entity/structuredProperty/${enc(property)}/status`, { headers: AUTH, query: { createIfNotExists: 'false' }, json: { value: { removed: true } } }));
    await ok(http(server.url, 'DELETE', `${V3}/entity/structuredProperty/${enc(property)}/status`, { headers: AUTH }));
    await ok(http(server.url, 'DELETE', `${V3}/entity/structuredProperty/${enc(property)}`, { headers: AUTH }));
    const added = auditLines().slice(before);
    expect(added.map(({ action, actor, target, outcome }) => ({ action, actor, target, outcome }))).toEqual([
      { action: 'definition.write', actor: ROOT_ACTOR, target: property, outcome: 'done' },
      { action: 'definition.write', actor: ROOT_ACTOR, target: property, outcome: 'refused' },
      { action: 'entity.softDelete', actor: ROOT_ACTOR, target: property, outcome: 'done' },
      { action: 'entity.restore', actor: ROOT_ACTOR, target: property, outcome: 'done' },
      { action: 'entity.hardDelete', actor: ROOT_ACTOR, target: property, outcome: 'done' },
    ]);
    expect(added[1]!.detail).toEqual({ code: 'INCOMPATIBLE_CHANGE' });
    expect(added[1]!.msg).toBe(`audit definition.write ${property} by ${ROOT_ACTOR} (machine): refused (INCOMPATIBLE_CHANGE)`);
    expect(added[4]!.msg).toBe(`audit entity.hardDelete ${property} by ${ROOT_ACTOR} (machine): done`);
  });

  test('the cleanup job of a hard delete is audited when it ends', async () => {
    const held = 'urn:li:structuredProperty:logs.audit.held';
    await ok(defineProperty(held));
    await ok(
      http(server.url, 'POST', `${V3}/entity/dataset`, {
        headers: AUTH,
        json: [{ urn: ds('logs.job'), structuredProperties: { value: { properties: [{ propertyUrn: held, values: [{ string: 'a' }] }] } }, status: { value: { removed: false } } }],
      }),
    );
    await ok(http(server.url, 'DELETE', `${V3}/entity/structuredProperty/${enc(held)}`, { headers: AUTH }));
    const job = await waitFor('the cleanup job to end', 60_000, async () =>
      auditLines().find((a) => a.action === 'job.run' && a.detail?.propertyUrn === held),
    );
    expect(job).toMatchObject({ actor: 'urn:li:corpuser:__propgraph_system', target: expect.stringMatching(/^job \d+$/), outcome: 'done', detail: { kind: 'cleanup-property-values', attempt: 1 } });
  });

  test('a bulk edit queued is audited with its property, operation, entity count and job; its run ends as a job.run', async () => {
    const tier = 'urn:li:structuredProperty:logs.audit.bulk';
    await ok(defineProperty(tier));
    await ok(http(server.url, 'POST', `${V3}/entity/dataset`, { headers: AUTH, json: [ds('logs.bulk1'), ds('logs.bulk2')].map((urn) => ({ urn, status: { value: { removed: false } } })) }));
    const before = auditLines().length;
    const queued = await http(server.url, 'POST', `${V3}/values/bulk`, { headers: AUTH, json: { urns: [ds('logs.bulk1'), ds('logs.bulk2')], property: tier, operation: 'set', values: ['gold'] } });
    expect(queued.status).toBe(202);
    const jobId = String(queued.body.jobId);
    expect(auditLines().slice(before).find((a) => a.action === 'values.bulkEdit')).toMatchObject({
      actor: ROOT_ACTOR,
      target: tier,
      outcome: 'done',
      detail: { job: jobId, operation: 'set', entities: 2 },
      msg: `audit values.bulkEdit ${tier} by ${ROOT_ACTOR} (machine): done`,
    });
    await waitFor('the bulk edit job to end', 60_000, async () => auditLines().find((a) => a.action === 'job.run' && a.target === `job ${jobId}`));
  });

  test('an aspect deleted, a token made and revoked', async () => {
    const urn = ds('logs.aspect');
    await ok(http(server.url, 'POST', `${V3}/entity/dataset`, { headers: AUTH, json: [{ urn, status: { value: { removed: false } }, datasetProperties: { value: { name: 'n' } } }] }));
    const before = auditLines().length;
    await ok(http(server.url, 'DELETE', `${V3}/entity/dataset/${enc(urn)}/datasetProperties`, { headers: AUTH }));
    const created = await ok(http(server.url, 'POST', `${V3}/tokens`, { headers: AUTH, json: { name: 'logs-ci', scope: 'read' } }));
    const id = (created.body as { metadata: { id: string } }).metadata.id;
    await ok(http(server.url, 'DELETE', `${V3}/tokens/${id}`, { headers: AUTH }));
    expect(auditLines().slice(before).map(({ action, target, outcome, detail }) => ({ action, target, outcome, detail }))).toEqual([
      { action: 'aspect.delete', target: urn, outcome: 'done', detail: { aspect: 'datasetProperties', existed: true } },
      { action: 'token.create', target: 'token name logs-ci', outcome: 'done', detail: { tokenId: id, scope: 'read', type: 'machine' } },
      { action: 'token.revoke', target: `token ${id}`, outcome: 'done', detail: undefined },
    ]);
    expect(raw.join('\n')).not.toContain((created.body as { accessToken: string }).accessToken);
  });

  test('a target quoted from input is cut at 200 characters, so a line stays small', async () => {
    // As long as a urn may be (2,000 characters): far past what an audit line quotes.
    const long = ds(`logs.long_${'n'.repeat(1900)}`);
    const before = auditLines().length;
    await http(server.url, 'DELETE', `${V3}/entity/dataset/${enc(long)}`, { headers: AUTH });
    const [line] = auditLines().slice(before);
    expect(line!.action).toBe('entity.hardDelete');
    expect(line!.target).toBe(`${long.slice(0, 200)}… (${long.length - 200} more characters)`);
    expect(raw[raw.length - 1]!.length).toBeLessThan(1500);
  });
});

describe('pretty format', () => {
  test('the access line is one line a person reads', async () => {
    const printed: string[] = [];
    const pretty = await startTestServer({
      env: { LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' },
      logDestination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          printed.push(chunk.toString());
          done();
        },
      }) as never,
    });
    try {
      const before = printed.join('').length;
      await http(pretty.url, 'GET', '/health/live');
      await waitFor('the access line', 10_000, async () => (printed.join('').slice(before).includes('/health/live') ? true : undefined));
      const text = printed.join('').slice(before);
      const lineWith = text.split('\n').filter((l) => l.includes('/health/live'));
      expect(lineWith).toHaveLength(1);
      expect(lineWith[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: GET \/health\/live 200 [\d.]+ ms urn:li:corpuser:\S+$/);
      expect(text).not.toMatch(/access:|reqId/);
    } finally {
      await pretty.stop();
    }
  });
});
