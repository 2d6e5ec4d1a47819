/**
 * The server as `npm start` runs it: a child process on the embedded default
 * (PostgreSQL and Meilisearch started by the server, data under DATA_DIR), /health, and graceful shutdown: on SIGTERM it stops taking
 * requests, finishes those in flight, and exits 0; every acknowledged write is there
 * after a restart.
 */
import { rmSync } from 'node:fs';
import { tempDir } from '../support/tempDir.js';
import { enc, http } from '../support/http.js';
import { buildOnce, startBuiltServer } from '../support/builtServer.js';
import { nonEmpty } from '../support/nonEmpty.js';

const dataDir = tempDir('propgraph-lifecycle-');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test('starts on the embedded PostgreSQL, answers /health, shuts down gracefully on SIGTERM and keeps every acknowledged write', async () => {
  await buildOnce();
  const first = await startBuiltServer({ DATA_DIR: dataDir, MEILI_EMBEDDED: 'false' });
  const health = await http(first.url, 'GET', '/health');
  expect(health.status).toBe(200);
  expect(health.body).toMatchObject({ status: 'ok', database: { ok: true, kind: 'embedded' }, jobs: { ok: true } });

  const prop = 'urn:li:structuredProperty:io.lifecycle.n';
  const def = await http(first.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(prop)}/propertyDefinition`, {
    json: { value: { qualifiedName: 'io.lifecycle.n', valueType: 'urn:li:dataType:svc.number', entityTypes: ['urn:li:entityType:svc.dataset'] } },
  });
  expect(def.status).toBe(200);

  // Writes in flight when SIGTERM arrives: each either completes (and must persist) or is refused.
  const urns = Array.from({ length: 40 }, (_, i) => `urn:li:dataset:(urn:li:dataPlatform:hive,lifecycle.t${i},PROD)`);
  let firstAck: () => void;
  const oneAcknowledged = new Promise<void>((resolve) => (firstAck = resolve));
  const writes = urns.map((urn, i) =>
    http(first.url, 'POST', '/openapi/v3/entity/dataset', {
      json: [{ urn, status: { value: { removed: false } }, structuredProperties: { value: { properties: [{ propertyUrn: prop, values: [{ double: i }] }] } } }],
    })
      .then((r) => {
        if (r.status !== 200) return undefined;
        firstAck();
        return { urn, value: i };
      })
      .catch(() => undefined),
  );
  // Signal as soon as one write is acknowledged, while the others are still in flight.
  await oneAcknowledged;
  first.child.kill('SIGTERM');
  const acknowledged = (await Promise.all(writes)).filter((w): w is { urn: string; value: number } => w !== undefined);
  expect(await first.exited).toBe(0);
  expect(acknowledged.length).toBeGreaterThan(0);
  expect(first.output.join('')).toContain('shutting down');
  // JSON lines are written asynchronously; the last one, logged just before exit, still arrives.
  const lines = first.output.join('').trim().split('\n');
  expect(JSON.parse(lines.at(-1)!)).toMatchObject({ msg: 'stopped' });

  const second = await startBuiltServer({ DATA_DIR: dataDir, MEILI_EMBEDDED: 'false' });
  try {
    for (const { urn, value } of nonEmpty(acknowledged)) {
      const read = await http(second.url, 'GET', `/openapi/v3/entity/dataset/${enc(urn)}/structuredProperties`);
      expect(read.body.structuredProperties.value.properties).toEqual([{ propertyUrn: prop, values: [{ double: value }] }]);
    }
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
});
