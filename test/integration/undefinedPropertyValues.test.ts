/**
 * DROP_UNDEFINED_PROPERTY_VALUES=true (README), as DataHub's
 * structuredProperties.dropMissingPropertyValuesWithWarning: a write naming a property that
 * does not exist beside one that does stores the defined one's values, drops the others and
 * logs a warning naming the entity and the dropped properties. Without the setting the same
 * write is refused, naming the property (test/conformance/datahubClientPaths.test.ts replays
 * DataHub's own client on the setting).
 */
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { waitFor } from '../support/waitFor.js';

const V3 = '/openapi/v3';
const ROOT_TOKEN = 'undefined-values-root-token-0123456789';
const AUTH = { authorization: `Bearer ${ROOT_TOKEN}` };
const DEFINED = 'urn:li:structuredProperty:io.drop.tier';
const UNDEFINED = 'urn:li:structuredProperty:io.drop.never_defined';
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly urn?: string;
  readonly properties?: string[];
  readonly actor?: string;
}
const raw: string[] = [];
const warnings = () => raw.map((l) => JSON.parse(l) as Line).filter((l) => l.level === 40);

const both = { properties: [{ propertyUrn: UNDEFINED, values: [{ string: 'x' }] }, { propertyUrn: DEFINED, values: [{ string: 'gold' }] }] };
const ENV = { AUTH_ENABLED: 'true', ROOT_TOKEN, URN_NAMESPACE: 'datahub' };

async function define(server: TestServer): Promise<void> {
  const res = await http(server.url, 'POST', `${V3}/entity/structuredProperty/${enc(DEFINED)}/propertyDefinition`, {
    headers: AUTH,
    query: { createIfNotExists: 'false' },
    json: { value: { qualifiedName: 'io.drop.tier', valueType: 'urn:li:dataType:datahub.string', entityTypes: ['urn:li:entityType:datahub.dataset'] } },
  });
  expect(res.status).toBe(200);
}

// One server at a time: the setting is the process's, as the URN namespace is (set at start-up).
describe('DROP_UNDEFINED_PROPERTY_VALUES=true', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { ...ENV, LOG_LEVEL: 'warn', DROP_UNDEFINED_PROPERTY_VALUES: 'true' }, logDestination: { write: (line: string) => void raw.push(line) } });
    await define(server);
  }, 120_000);
  afterAll(() => server?.stop());

  test('the defined property is stored, the undefined one dropped, and the server logs a warning naming the entity and the property', async () => {
    const urn = ds('drop.orders');
    const res = await http(server.url, 'POST', `${V3}/entity/dataset`, { headers: AUTH, json: [{ urn, structuredProperties: { value: both } }] });
    expect([res.status, res.text]).toEqual([200, expect.anything()]);
    const stored = await http(server.url, 'GET', `${V3}/entity/dataset/${enc(urn)}/structuredProperties`, { headers: AUTH });
    expect(stored.body.structuredProperties.value).toEqual({ properties: [{ propertyUrn: DEFINED, values: [{ string: 'gold' }] }] });
    const line = await waitFor('the warning', 10_000, async () => warnings().find((l) => l.urn === urn));
    expect(line).toMatchObject({ properties: [UNDEFINED], actor: 'urn:li:corpuser:__service_root' });
    expect(line.msg).toMatch(/DROP_UNDEFINED_PROPERTY_VALUES/);
  });
});

describe('without it (the default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: ENV });
    await define(server);
  }, 120_000);
  afterAll(() => server?.stop());

  test('the same write is refused naming the property, and nothing is stored', async () => {
    const urn = ds('refuse.orders');
    const res = await http(server.url, 'POST', `${V3}/entity/dataset`, { headers: AUTH, json: [{ urn, structuredProperties: { value: both } }] });
    expect(res.status).toBe(400);
    expect(res.text).toContain(`${UNDEFINED} does not exist`);
    expect((await http(server.url, 'GET', `${V3}/entity/dataset/${enc(urn)}/structuredProperties`, { headers: AUTH })).status).toBe(404);
  });
});
