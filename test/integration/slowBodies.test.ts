/**
 * Slow bodies time out (issue #14, item 7): a client that declares a large body and
 * trickles it a byte at a time must not hold a connection for minutes. A request
 * refused before its body is read (no token) is answered at once and disconnected
 * after a short grace; an accepted one has REQUEST_TIMEOUT_MS to arrive whole (408).
 */
import { connect, type Socket } from 'node:net';
import { waitFor } from '../support/waitFor.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = 'slow-bodies-root';
/** The refused-body grace (5 s) plus the server's connection check and a loaded machine's slack. */
const CLOSE_BOUND_MS = 20_000;

interface SlowClient {
  readonly socket: Socket;
  /** Everything the server sent. */
  received(): string;
  /** Set when the server closed the connection: ms after the request started. */
  closedAfter(): number | undefined;
  stop(): void;
}

/** Sends the request head, then one byte of body every `everyMs` until the server closes the connection. */
function slowClient(url: string, head: string, everyMs = 200): SlowClient {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  const started = Date.now();
  let received = '';
  let closedAt: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    closedAt = Date.now();
    clearInterval(timer);
  });
  socket.on('connect', () => {
    socket.write(head);
    timer = setInterval(() => {
      if (!socket.destroyed) socket.write('[');
    }, everyMs);
  });
  return {
    socket,
    received: () => received,
    closedAfter: () => (closedAt === undefined ? undefined : closedAt - started),
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

const postHead = (headers: Record<string, string>) =>
  `POST /openapi/v3/entity/dataset HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

async function closedWithin(client: SlowClient, what: string): Promise<number> {
  return waitFor(what, CLOSE_BOUND_MS, async () => client.closedAfter(), 50);
}

describe('with the default request timeout', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, RATE_LIMIT_PER_MINUTE: '1000000' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  test('50 unauthenticated slow bodies are answered 401 at once and disconnected after the grace period', async () => {
    const clients = Array.from({ length: 50 }, () => slowClient(server.url, postHead({})));
    try {
      const closed = await Promise.all(clients.map((c, i) => closedWithin(c, `unauthenticated client ${i} to be disconnected`)));
      for (const c of clients) expect(c.received()).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
      expect(Math.max(...closed)).toBeLessThan(CLOSE_BOUND_MS);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    } finally {
      for (const c of clients) c.stop();
    }
  });

  test('a refused request whose body arrives in full keeps its connection for the next request', async () => {
    const { hostname, port } = new URL(server.url);
    const socket = connect({ host: hostname, port: Number(port) });
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    await new Promise((resolve) => socket.once('connect', resolve));
    try {
      const body = JSON.stringify([{ urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)' }]);
      socket.write(`POST /openapi/v3/entity/dataset HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      await waitFor('the 401', 10_000, async () => (received.includes('"error":"Unauthorized"') ? true : undefined), 20);
      socket.write(`GET /health HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${ROOT}\r\n\r\n`);
      await waitFor('the health answer on the same connection', 10_000, async () => (/HTTP\/1\.1 200 OK/.test(received) ? true : undefined), 20);
      expect(socket.destroyed).toBe(false);
    } finally {
      socket.destroy();
    }
  });
});

describe('with REQUEST_TIMEOUT_MS=2000', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, RATE_LIMIT_PER_MINUTE: '1000000', REQUEST_TIMEOUT_MS: '2000' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  test('an authenticated slow body is answered 408 and disconnected once the request timeout passes', async () => {
    const clients = Array.from({ length: 20 }, () => slowClient(server.url, postHead({ Authorization: `Bearer ${ROOT}` })));
    try {
      const closed = await Promise.all(clients.map((c, i) => closedWithin(c, `authenticated client ${i} to be timed out`)));
      for (const c of clients) expect(c.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      // Not before the timeout: the server did wait for the body.
      expect(Math.min(...closed)).toBeGreaterThanOrEqual(2000);
    } finally {
      for (const c of clients) c.stop();
    }
  });

  test('request headers sent a byte at a time time out too', async () => {
    const { hostname, port } = new URL(server.url);
    const socket = connect({ host: hostname, port: Number(port) });
    let received = '';
    let closed = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
    });
    const head = `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'x'.repeat(1000)}\r\n\r\n`;
    let i = 0;
    const timer = setInterval(() => {
      if (!socket.destroyed && i < head.length) socket.write(head[i++]!);
    }, 100);
    try {
      await waitFor('the slow headers to be cut off', CLOSE_BOUND_MS, async () => (closed ? true : undefined), 50);
      expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(i).toBeLessThan(head.length);
    } finally {
      clearInterval(timer);
      socket.destroy();
    }
  });
});
