/**
 * Shutdown under load, as a user meets it: the server runs as `npm start` runs it
 * (node dist/main.js), 16 clients write to it over keep-alive connections, and the
 * server gets SIGTERM (an orchestrator) or SIGINT (Ctrl-C) while they write. It stops
 * accepting, finishes every request in flight, closes each connection after its last
 * answer, and only then stops the engines: no client sees a connection reset, and
 * every write it acknowledged is there when a new server starts on the same data.
 */
import http from 'node:http';
import { rmSync } from 'node:fs';
import { buildOnce, startBuiltServer } from '../support/builtServer.js';
import { enc } from '../support/http.js';
import { searchAvailableForTests, sharedMeilisearch } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';
import { waitFor } from '../support/waitFor.js';

const CLIENTS = 16;
/** Acknowledged writes to have before the signal, so that the load is steady when it arrives. */
const ACKS_BEFORE_SIGNAL = 160;
const PROPERTY = 'urn:li:structuredProperty:io.shutdown.n';

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** One request on the client's own keep-alive agent; rejects with the socket error's code. */
function send(agent: http.Agent, base: URL, method: string, path: string, json?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = json === undefined ? undefined : JSON.stringify(json);
    const request = http.request(
      { host: base.hostname, port: base.port, method, path, agent, headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

interface Tally {
  acknowledged: Array<{ urn: string; value: number }>;
  /** Answered with another status (a refusal the client can see and retry). */
  refusedWithStatus: Map<number, number>;
  /** Connection refused: the server no longer listens; nothing was sent. */
  connectionRefused: number;
  /** Connections reset or closed under a request: what must never happen. */
  resets: Array<{ code: string; message: string }>;
  inFlightAtSignal: number;
}

async function writeUntilRefused(base: URL, client: number, tally: Tally, inFlight: { n: number }): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let seq = 0; ; seq++) {
      const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,shutdown.c${client}.w${seq},PROD)`;
      const value = client * 100_000 + seq;
      inFlight.n++;
      try {
        const answer = await send(agent, base, 'POST', '/openapi/v3/entity/dataset', [
          { urn, status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: PROPERTY, values: [{ double: value }] }] } } },
        ]);
        if (answer.status === 200) tally.acknowledged.push({ urn, value });
        else tally.refusedWithStatus.set(answer.status, (tally.refusedWithStatus.get(answer.status) ?? 0) + 1);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
        if (code === 'ECONNREFUSED') {
          tally.connectionRefused++;
          return;
        }
        tally.resets.push({ code, message: (err as Error).message });
        // After a reset the next attempt finds the listener closed; keep the count honest and stop.
        return;
      } finally {
        inFlight.n--;
      }
    }
  } finally {
    agent.destroy();
  }
}

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe.each(['SIGTERM', 'SIGINT'] as const)('%s while 16 clients write', (signal) => {
  test('no connection is reset, every acknowledged write survives, and the server exits 0', async () => {
    await buildOnce();
    const dataDir = tempDir('propgraph-shutdown-');
    dataDirs.push(dataDir);
    const env: Record<string, string> = { DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '10000000' };
    if (searchAvailableForTests()) {
      const meili = sharedMeilisearch();
      Object.assign(env, { MEILI_URL: meili.url, MEILI_API_KEY: meili.key, MEILI_INDEX_PREFIX: `shutdown_${signal}_${process.pid}_` });
    } else env.MEILI_EMBEDDED = 'false';
    const first = await startBuiltServer(env);
    const base = new URL(first.url);
    const setup = new http.Agent({ keepAlive: false });
    const defined = await send(setup, base, 'POST', `/openapi/v3/entity/structuredProperty/${enc(PROPERTY)}/propertyDefinition`, {
      value: { qualifiedName: 'io.shutdown.n', valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'] },
    });
    expect(defined.status).toBe(200);

    const tally: Tally = { acknowledged: [], refusedWithStatus: new Map(), connectionRefused: 0, resets: [], inFlightAtSignal: 0 };
    const inFlight = { n: 0 };
    const clients = Array.from({ length: CLIENTS }, (_, i) => writeUntilRefused(base, i, tally, inFlight));
    await waitFor(`${ACKS_BEFORE_SIGNAL} acknowledged writes`, 60_000, async () => (tally.acknowledged.length >= ACKS_BEFORE_SIGNAL ? true : undefined), 5);
    const acksAtSignal = tally.acknowledged.length;
    tally.inFlightAtSignal = inFlight.n;
    const signalled = performance.now();
    first.child.kill(signal);
    await Promise.all(clients);
    const code = await first.exited;
    const exitMs = Math.round(performance.now() - signalled);

    const statuses = Object.fromEntries(tally.refusedWithStatus);
    const drained = first.output
      .join('')
      .split('\n')
      .map((line) => {
        try {
          return JSON.parse(line) as { msg?: string; ms?: number };
        } catch {
          return {};
        }
      })
      .find((entry) => entry.msg?.startsWith('requests drained'));
    // The figures the operations guide quotes.
    console.log(
      `${signal}: ${tally.acknowledged.length} writes acknowledged (${tally.acknowledged.length - acksAtSignal} after the signal), ` +
        `${tally.inFlightAtSignal} in flight at the signal, other answers ${JSON.stringify(statuses)}, ` +
        `${tally.connectionRefused} connections refused after the listener closed, ${tally.resets.length} resets, ` +
        `requests drained in ${drained?.ms ?? '?'} ms, exit ${code} after ${exitMs} ms`,
    );
    expect(tally.resets).toEqual([]);
    expect(code).toBe(0);
    // Every client ends on a refused connection: the server closed each keep-alive connection after its last answer.
    expect(tally.connectionRefused).toBe(CLIENTS);
    const output = first.output.join('');
    expect(output).toContain('shutting down');
    // The engines stop after the last request is answered.
    expect(output.indexOf('requests drained')).toBeGreaterThan(output.indexOf('shutting down'));

    const second = await startBuiltServer(env);
    try {
      const reader = new http.Agent({ keepAlive: true, maxSockets: 8 });
      const lost: string[] = [];
      const queue = [...tally.acknowledged];
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let next = queue.pop(); next; next = queue.pop()) {
            const read = await send(reader, new URL(second.url), 'GET', `/openapi/v3/entity/dataset/${enc(next.urn)}/structuredProperties`);
            const properties = read.status === 200 ? (JSON.parse(read.body) as { structuredProperties: { value: { properties: Array<{ propertyUrn: string; values: unknown[] }> } } }).structuredProperties.value.properties : [];
            const kept = properties.length === 1 && properties[0]!.propertyUrn === PROPERTY && JSON.stringify(properties[0]!.values) === JSON.stringify([{ double: next.value }]);
            if (!kept) lost.push(`${next.urn}: ${read.status} ${read.body.slice(0, 300)}`);
          }
        }),
      );
      reader.destroy();
      expect(lost).toEqual([]);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 240_000);
});
