/**
 * The probes orchestrators call (docs/operations.md), public like /health: live while
 * the process runs; ready while the database answers, every shipped migration is
 * applied and the server is not shutting down, whatever search does. And a request
 * sent on an open keep-alive connection after shutdown began is answered (here, "not
 * ready"), with `Connection: close`, not reset.
 */
import http from 'node:http';
import pg from 'pg';
import { startTestServer, type TestServer } from '../support/server.js';

function get(agent: http.Agent, url: string, path: string): Promise<{ status: number; body: unknown; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    http
      .get({ host: target.hostname, port: target.port, path: target.pathname, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), connection: response.headers.connection }));
      })
      .on('error', reject);
  });
}

describe('probes', () => {
  let server: TestServer;
  // Search configured but unreachable: degraded, still ready.
  beforeAll(async () => {
    server = await startTestServer({ search: { url: 'http://127.0.0.1:9', key: 'unreachable' }, env: { AUTH_ENABLED: 'true', ROOT_TOKEN: 'probes-suite-root-token-0123456789' } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  test('live and ready without a token, with search unreachable', async () => {
    const agent = new http.Agent({ keepAlive: false });
    expect(await get(agent, server.url, '/health/live')).toMatchObject({ status: 200, body: { status: 'live' } });
    expect(await get(agent, server.url, '/health/ready')).toMatchObject({ status: 200, body: { status: 'ready' } });
    expect((await get(agent, server.url, '/health')).status).toBe(503);
  });

  test("/metrics leaves Meilisearch's queue out when the engine does not answer, and still answers", async () => {
    const res = await fetch(new URL('/metrics', server.url), { headers: { authorization: 'Bearer probes-suite-root-token-0123456789' } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('propgraph_db_pool_connections{state="total"}');
    expect(text).not.toMatch(/^propgraph_search_tasks\{/m);
  });

  test('not ready while a migration this version ships is not applied', async () => {
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ migration_name: string }>('SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name DESC LIMIT 1');
      const newest = rows[0]!.migration_name;
      await client.query('UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = $1', [newest]);
      try {
        expect(await get(new http.Agent(), server.url, '/health/ready')).toMatchObject({ status: 503, body: { status: 'not ready', reason: `migrations not applied: ${newest}` } });
      } finally {
        await client.query('UPDATE "_prisma_migrations" SET rolled_back_at = NULL WHERE migration_name = $1', [newest]);
      }
    } finally {
      await client.end();
    }
  });
});

describe('probes during shutdown', () => {
  test('a request on an open connection after shutdown began is served: not ready, Connection: close', async () => {
    const server = await startTestServer();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(agent, server.url, '/health/live');
      expect(first.connection).toBe('keep-alive');
      const closing = server.stop();
      const during = await get(agent, server.url, '/health/ready');
      expect(during).toEqual({ status: 503, body: { status: 'not ready', reason: 'shutting down' }, connection: 'close' });
      await closing;
      await expect(get(agent, server.url, '/health/live')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      agent.destroy();
    }
  });
});
