/**
 * Each principal's share of the server (rest/serverShare.ts, issue #46), over HTTP on a
 * real server: a principal in a closed loop is never held while it is alone; while
 * another principal has a request in flight it is held once past its share; probes
 * are never held; a held request whose client goes away leaves nothing in flight.
 * PRINCIPAL_SHARE 0.2 here, so that a loop is past its share after about a second
 * (TAU x ln(1 / 0.8) = 1.1 s) rather than the default's 2.6 s.
 */
import { connect, type Socket } from 'node:net';
import { shareDelays } from '../../src/telemetry/metrics.js';
import { http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = 'share-root-secret';
const root = { authorization: `Bearer ${ROOT}` };
let server: TestServer;
let reader: string;

const delays = async () => (await shareDelays.get()).values[0]?.value ?? 0;

/** `seconds` of root's requests, one after another (a closed loop); how many were answered. */
async function rootLoop(seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let n = 0;
  while (performance.now() < until) {
    const res = await http(server.url, 'GET', '/openapi/v3/jobs', { headers: root, query: { count: '1' } });
    expect(res.status).toBe(200);
    n++;
  }
  return n;
}

/** A request of the reader's kept in flight: its headers sent, its body not finished. */
async function readerInFlight(): Promise<Socket> {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(`POST /api/graphql HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${reader}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":`);
  socket.on('error', () => undefined);
  return socket;
}

beforeAll(async () => {
  server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, PRINCIPAL_SHARE: '0.2', RATE_LIMIT_PER_MINUTE: '1000000' } });
  const created = await http(server.url, 'POST', '/openapi/v3/tokens', { json: { name: 'share-reader', scope: 'read' }, headers: root });
  expect(created.status).toBe(200);
  reader = created.body.accessToken;
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

test('alone, a principal in a closed loop is never held', async () => {
  const before = await delays();
  expect(await rootLoop(1.5)).toBeGreaterThan(0);
  expect(await delays()).toBe(before);
});

test('while another principal has a request in flight, the loop is held once past its share; probes never are', async () => {
  const socket = await readerInFlight();
  try {
    const before = await delays();
    await rootLoop(1.5);
    const held = (await delays()) - before;
    expect(held).toBeGreaterThan(0);
    // Probes and the scrape are answered, never held, while root (who /health and /metrics know by its token) is past its share and the reader waits.
    for (const path of ['/health', '/health/live', '/health/ready', '/metrics']) expect((await http(server.url, 'GET', path, { headers: root })).status).toBe(200);
    expect((await delays()) - before).toBe(held);
  } finally {
    socket.destroy();
  }
});

test("once the other principal's request has gone, nothing is held again", async () => {
  // The reader's request went away with its connection; once the server has seen it go, root, past its share, is not held.
  for (let tries = 0; ; tries++) {
    const before = await delays();
    await http(server.url, 'GET', '/openapi/v3/jobs', { headers: root, query: { count: '1' } });
    if ((await delays()) === before) break;
    expect(tries).toBeLessThan(100);
  }
  const before = await delays();
  await rootLoop(1);
  expect(await delays()).toBe(before);
});
