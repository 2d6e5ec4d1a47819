/**
 * The container image (docs/operations.md, "From the container image";
 * docs/deploy/Containerfile), built from the packed artefact and run with podman as
 * these machines can (test/support/podman.ts: runc, explicit ulimits, local base images
 * in place of the registries'). It is labelled with its version, revision and source,
 * runs as a non-root user with the server as PID 1 on its embedded engines, answers its
 * health check, takes a write and finds it by search; `podman stop` (SIGTERM) drains it
 * and it exits 0; a new container on the same volume has everything. With DATABASE_URL
 * and MEILI_URL it runs on external engines instead, on a read-only root file system as
 * the Kubernetes manifests run it. Each step's time is printed (the suite runs in CI,
 * whose time is bounded).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { packArtefact } from '../support/artefact.js';
import { ROOT } from '../support/build.js';
import { datasetUrn, V3 } from '../support/catalog.js';
import { http } from '../support/http.js';
import { freePort } from '../../src/embedded/freePort.js';
import { createTestDatabase } from '../support/postgres.js';
import { postgresAvailableForTests, searchAvailableForTests, sharedMeilisearch } from '../support/server.js';
import { DEBIAN_BASE, ensureBaseImages, NODE_BASE, podman, podmanAvailable, RUNTIME, ULIMITS } from '../support/podman.js';
import { tempDir } from '../support/tempDir.js';
import { waitFor } from '../support/waitFor.js';
import { APP_VERSION } from '../../src/platform/version.js';

const TOKEN = 'container-test-root-token-0123456789';
const root = { authorization: `Bearer ${TOKEN}` };
const tag = `${process.pid}-${Date.now()}`;
const IMAGE = `localhost/propgraph-test:${tag}`;
const VOLUME = `propgraph-test-data-${tag}`;
const SOURCE = 'https://example.invalid/propgraph.git';
const report = (line: string) => console.log(`[container] ${line}`);
const containers: string[] = [];
const scratch: string[] = [];

async function npmConfig(key: string): Promise<string | undefined> {
  const value = (await promisify(execFile)('npm', ['config', 'get', key])).stdout.trim();
  return value && value !== 'null' && value !== 'undefined' ? value : undefined;
}

/**
 * Starts a container of the image on the volume (or, with `external`, on the host's
 * network with those settings); its name and URL once it is ready.
 */
async function startContainer(name: string, external?: { port: number; args: string[] }): Promise<{ name: string; url: string; ms: number }> {
  const started = Date.now();
  let port = external?.port ?? 0;
  // The published port is drawn below the kernel's ephemeral range (freePort): podman's own
  // choice (`-p 127.0.0.1::8080`) came from that range, and in one CI run an outgoing
  // connection held it when podman bound it. A port free a moment ago can still be taken
  // by then: another one, up to three times.
  for (let attempt = 1; ; attempt++) {
    if (!external) port = await freePort();
    const where = external ? ['--network', 'host', '-e', `PORT=${port}`, '-e', 'HOST=127.0.0.1', ...external.args] : ['-p', `127.0.0.1:${port}:8080`, '-v', `${VOLUME}:/data`];
    try {
      await podman(['run', '-d', '--name', name, ...RUNTIME, ...ULIMITS, ...where, '-e', `ROOT_TOKEN=${TOKEN}`, IMAGE]);
      break;
    } catch (err) {
      if (external || attempt >= 3 || !/address already in use/.test((err as Error).message)) throw err;
      await podman(['rm', '-f', name]).catch(() => undefined);
    }
  }
  containers.push(name);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${name} to be ready`, 180_000, async () => {
    const state = (await podman(['inspect', name, '--format', '{{.State.Status}}'])).stdout.trim();
    if (state !== 'running') throw new Error(`${name} is ${state}:\n${(await podman(['logs', name]).catch((e: Error) => ({ stdout: e.message }))).stdout.slice(-3000)}`);
    const res = await fetch(`${url}/health/ready`).catch(() => undefined);
    await res?.arrayBuffer();
    return res?.status === 200 ? true : undefined;
  }, 250);
  return { name, url, ms: Date.now() - started };
}

if (!podmanAvailable()) console.warn('containerImage: skipped (needs podman, runc and debootstrap: .ci/run installs them)');

(podmanAvailable() ? describe : describe.skip)('the container image', () => {
  beforeAll(async () => {
    const baseMs = await ensureBaseImages();
    report(`local base images ${baseMs === 0 ? 'found' : `made in ${baseMs} ms`}: ${DEBIAN_BASE}, ${NODE_BASE}`);
    let started = Date.now();
    const tgz = await packArtefact();
    const context = tempDir('propgraph-image-');
    scratch.push(path.dirname(tgz), context);
    copyFileSync(tgz, path.join(context, path.basename(tgz)));
    report(`artefact packed in ${Date.now() - started} ms`);
    // The build reaches the npm registry as this machine does: its network, its CA file
    // (a TLS-inspecting proxy), and its npm cache, mounted for the install stage only.
    const cafile = await npmConfig('cafile');
    const cache = await npmConfig('cache');
    const npmArgs = [
      ...(cafile && existsSync(cafile) ? ['-v', `${cafile}:/build-ca.crt:ro`, '--build-arg', 'npm_config_cafile=/build-ca.crt'] : []),
      ...(cache ? ['-v', `${cache}:/npm-cache`, '--build-arg', 'npm_config_cache=/npm-cache'] : []),
    ];
    started = Date.now();
    await podman(
      [
        'build', ...RUNTIME, ...ULIMITS, '--format', 'docker', '--layers=false', '--network', 'host', ...npmArgs,
        '--build-arg', `NODE_IMAGE=${NODE_BASE}`, '--build-arg', `DEBIAN_IMAGE=${DEBIAN_BASE}`,
        '--build-arg', `VERSION=${APP_VERSION}`, '--build-arg', 'REVISION=test-revision', '--build-arg', `SOURCE=${SOURCE}`,
        '-f', path.join(ROOT, 'docs/deploy/Containerfile'), '-t', IMAGE, context,
      ],
      { timeoutMs: 900_000 },
    );
    report(`image built in ${Date.now() - started} ms`);
    await podman(['volume', 'create', VOLUME]);
  }, 1_500_000);

  afterAll(async () => {
    if (containers.length > 0) await podman(['rm', '-f', ...containers]).catch(() => undefined);
    await podman(['volume', 'rm', '-f', VOLUME]).catch(() => undefined);
    await podman(['rmi', '-f', IMAGE]).catch(() => undefined);
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  test('is labelled with its version, revision and source, and declares its user, volume, port and health check', async () => {
    const inspected = JSON.parse((await podman(['image', 'inspect', IMAGE])).stdout)[0];
    const config = inspected.Config;
    expect(config.Labels).toMatchObject({
      'org.opencontainers.image.version': APP_VERSION,
      'org.opencontainers.image.revision': 'test-revision',
      'org.opencontainers.image.source': SOURCE,
      'org.opencontainers.image.title': 'propgraph',
    });
    expect(config.User).toBe('10001:10001');
    expect(Object.keys(config.Volumes ?? {})).toEqual(['/data']);
    expect(Object.keys(config.ExposedPorts ?? {})).toEqual(['8080/tcp']);
    expect(inspected.Healthcheck.Test.join(' ')).toContain('/health/ready');
    expect(config.StopSignal).toBe('SIGTERM');
    expect(config.Entrypoint).toEqual(['propgraph']);
    expect(config.Cmd).toEqual(['serve']);
    report(`image size ${Math.round(inspected.Size / 1e6)} MB`);
  });

  test('runs as non-root on its embedded engines, takes a write and finds it; SIGTERM drains; a new container on the volume has it all', async () => {
    const first = await startContainer(`propgraph-test-a-${tag}`);
    report(`first container ready in ${first.ms} ms`);
    expect((await podman(['exec', first.name, 'id', '-u'])).stdout.trim()).toBe('10001');
    expect((await podman(['exec', first.name, 'cat', '/proc/1/cmdline'])).stdout.split('\0').slice(0, 3)).toEqual(['node', '/opt/propgraph/node_modules/.bin/propgraph', 'serve']);
    await podman(['healthcheck', 'run', first.name]);

    const urn = datasetUrn('container.orders');
    const write = await http(first.url, 'POST', `${V3}/entity/dataset`, { headers: root, json: [{ urn, status: { value: { removed: false } } }] });
    expect(write.status).toBe(200);
    const search = async (url: string) => (await http(url, 'GET', `${V3}/entity/dataset`, { headers: root, query: { query: 'container.orders' } })).body.entities.map((e: { urn: string }) => e.urn);
    expect(await search(first.url)).toEqual([urn]);

    let started = Date.now();
    await podman(['stop', '--time', '60', first.name]);
    const state = JSON.parse((await podman(['inspect', first.name, '--format', '{{json .State}}'])).stdout);
    expect(state.ExitCode).toBe(0);
    const logs = (await podman(['logs', first.name])).stdout;
    expect(logs).toContain('"signal":"SIGTERM","msg":"shutting down"');
    expect(logs).toContain('"msg":"stopped"');
    report(`stopped by SIGTERM in ${Date.now() - started} ms, exit 0`);

    started = Date.now();
    const second = await startContainer(`propgraph-test-b-${tag}`);
    report(`second container on the same volume ready in ${second.ms} ms`);
    expect((await http(second.url, 'GET', `${V3}/entity/dataset/${encodeURIComponent(urn)}`, { headers: root })).status).toBe(200);
    expect(await search(second.url)).toEqual([urn]);
    await podman(['stop', '--time', '60', second.name]);
  }, 600_000);

  (postgresAvailableForTests() && searchAvailableForTests() ? test : test.skip)(
    'runs on an external PostgreSQL and Meilisearch from DATABASE_URL and MEILI_URL, on a read-only root file system',
    async () => {
      const databaseUrl = await createTestDatabase(process.env.PROPGRAPH_TEST_PG_URL!, `propgraph_image_${process.pid}`);
      const meili = sharedMeilisearch();
      const args = ['--read-only', '--tmpfs', '/tmp', '--tmpfs', '/data', '-e', `DATABASE_URL=${databaseUrl}`, '-e', `MEILI_URL=${meili.url}`, '-e', `MEILI_API_KEY=${meili.key}`, '-e', `MEILI_INDEX_PREFIX=image_${process.pid}_`];
      const server = await startContainer(`propgraph-test-ext-${tag}`, { port: await freePort(), args });
      report(`container on external engines ready in ${server.ms} ms`);
      expect((await http(server.url, 'GET', '/health', { headers: root })).body.status).toBe('ok');
      const listening = (await podman(['logs', server.name])).stdout.split('\n').find((l) => l.includes('"msg":"propgraph listening"'))!;
      expect(JSON.parse(listening)).toMatchObject({ database: 'external', search: 'external' });
      const urn = datasetUrn('container.external');
      expect((await http(server.url, 'POST', `${V3}/entity/dataset`, { headers: root, json: [{ urn, status: { value: { removed: false } } }] })).status).toBe(200);
      const found = await http(server.url, 'GET', `${V3}/entity/dataset`, { headers: root, query: { query: 'container.external' } });
      expect(found.body.entities.map((e: { urn: string }) => e.urn)).toEqual([urn]);
      await podman(['stop', '--time', '60', server.name]);
      expect(JSON.parse((await podman(['inspect', server.name, '--format', '{{json .State}}'])).stdout).ExitCode).toBe(0);
    },
    300_000,
  );
});
