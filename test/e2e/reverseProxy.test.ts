/**
 * Behind a reverse proxy with TLS (docs/operations.md, "Behind a reverse proxy"): the
 * recipe docs/deploy/nginx.conf, run by Debian's nginx as written but for its addresses
 * and certificate (a throwaway CA's, which the clients here verify), in front of a
 * server started with TRUSTED_PROXIES. Through it: the console, GraphQL, REST and
 * DataHub's Rest.li; a person's sign-in through a real OpenID provider in Chromium,
 * whose callback is the proxy's https address; a backup streamed whole; plain HTTP sent
 * to HTTPS. Forwarded headers from an address TRUSTED_PROXIES does not name change
 * nothing (the callback, the address failed authentications count against); from one
 * it names, each forwarded client is counted apart.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { freePort } from '../../src/embedded/freePort.js';
import { ensureConsoleBuilt, ROOT } from '../support/build.js';
import { CHROMIUM, chromiumAvailable } from '../support/browser.js';
import { datasetUrn, V3 } from '../support/catalog.js';
import { oidcEnv, PEOPLE, propgraphClient, startOpenIdProvider, type RunningProvider } from '../support/openIdProvider.js';
import { searchAvailableForTests, startTestServer, type TestServer } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';
import { waitFor } from '../support/waitFor.js';

const NGINX = '/usr/sbin/nginx';
const run = promisify(execFile);
const TOKEN = `pgt_proxy_${Math.random().toString(36).slice(2)}`;
const auth = { authorization: `Bearer ${TOKEN}` };
const available = existsSync(NGINX) && chromiumAvailable();
if (!available) console.warn(`reverseProxy: skipped (needs ${NGINX} and Chromium)`);

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** One HTTPS request that verifies the proxy's certificate against the test CA. */
function https(url: string, ca: Buffer, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

const json = (answer: Answer) => JSON.parse(answer.body.toString('utf8'));

/** A CA and a certificate for 127.0.0.1 signed by it; the certificate's SPKI hash, which Chromium is told to accept. */
async function makeCertificates(dir: string): Promise<{ ca: Buffer; cert: string; key: string; spki: string }> {
  const f = (name: string) => path.join(dir, name);
  const openssl = (args: string[]) => run('openssl', args, { cwd: dir });
  await openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=propgraph test CA', '-keyout', f('ca.key'), '-out', f('ca.pem')]);
  await openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', f('server.key'), '-out', f('server.csr')]);
  writeFileSync(f('san.ext'), 'subjectAltName = IP:127.0.0.1, DNS:localhost\n');
  await openssl(['x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-days', '2', '-extfile', f('san.ext'), '-out', f('server.pem')]);
  const { stdout } = await run('sh', ['-c', `openssl x509 -in "${f('server.pem')}" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`]);
  return { ca: readFileSync(f('ca.pem')), cert: f('server.pem'), key: f('server.key'), spki: stdout.trim() };
}

/** The recipe with this run's addresses and certificate: each substitution must find its line. */
function renderRecipe(ports: { server: number; tls: number; plain: number }, cert: string, key: string): string {
  const substitutions: Array<[string, string]> = [
    ['server 127.0.0.1:8080;', `server 127.0.0.1:${ports.server};`],
    ['listen 443 ssl;', `listen 127.0.0.1:${ports.tls} ssl;`],
    ['listen 80;', `listen 127.0.0.1:${ports.plain};`],
    ['/etc/ssl/propgraph/fullchain.pem', cert],
    ['/etc/ssl/propgraph/privkey.pem', key],
  ];
  let text = readFileSync(path.join(ROOT, 'docs/deploy/nginx.conf'), 'utf8');
  for (const [from, to] of substitutions) {
    expect({ line: from, inRecipe: text.includes(from) }).toEqual({ line: from, inRecipe: true });
    text = text.replace(from, to);
  }
  return text;
}

(available ? describe : describe.skip)('propgraph behind nginx with TLS', () => {
  let provider: RunningProvider;
  let server: TestServer;
  let nginx: ChildProcess;
  let proxy: string;
  let ports: { server: number; tls: number; plain: number };
  let certs: Awaited<ReturnType<typeof makeCertificates>>;
  const dir = tempDir('propgraph-proxy-');

  beforeAll(async () => {
    await ensureConsoleBuilt();
    ports = { server: await freePort(), tls: await freePort(), plain: await freePort() };
    proxy = `https://127.0.0.1:${ports.tls}`;
    certs = await makeCertificates(dir);
    // The provider knows propgraph by the proxy's address only.
    provider = await startOpenIdProvider({ clients: [propgraphClient(`${proxy}/auth/callback`)] });
    server = await startTestServer({
      search: searchAvailableForTests(),
      env: { AUTH_ENABLED: 'true', ROOT_TOKEN: TOKEN, PORT: String(ports.server), TRUSTED_PROXIES: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '1000000', ...oidcEnv(provider.issuer) },
    });
    // nginx's workers (user nobody) write its temporary files.
    for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
      mkdirSync(path.join(dir, sub));
      chmodSync(path.join(dir, sub), 0o777);
    }
    writeFileSync(path.join(dir, 'propgraph.conf'), renderRecipe(ports, certs.cert, certs.key));
    writeFileSync(
      path.join(dir, 'nginx.conf'),
      `worker_processes 1;\nerror_log ${dir}/error.log warn;\npid ${dir}/nginx.pid;\nevents { worker_connections 256; }\n` +
        `http {\n  access_log off;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n  scgi_temp_path ${dir}/scgi;\n  include ${dir}/propgraph.conf;\n}\n`,
    );
    nginx = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'inherit', 'inherit'] });
    await waitFor('nginx to answer over TLS', 60_000, async () => ((await https(`${proxy}/health`, certs.ca).catch(() => undefined))?.status === 200 ? true : undefined), 100);
  }, 180_000);

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      nginx.kill('SIGQUIT');
      await new Promise((resolve) => nginx.once('exit', resolve));
    }
    await server?.stop();
    await provider?.stop();
  });

  test('the console, GraphQL, REST and Rest.li answer through TLS at the proxy', async () => {
    const consolePage = await https(`${proxy}/`, certs.ca);
    expect(consolePage.status).toBe(200);
    expect(consolePage.body.toString()).toContain('<title>');
    const urn = datasetUrn('proxy.orders');
    const write = await https(`${proxy}${V3}/entity/dataset`, certs.ca, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify([{ urn, status: { value: { removed: false } } }]) });
    expect(write.status).toBe(200);
    expect(json(await https(`${proxy}${V3}/entity/dataset/${encodeURIComponent(urn)}`, certs.ca, { headers: auth })).urn).toBe(urn);
    const graphql = await https(`${proxy}/api/graphql`, certs.ca, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query: `{ dataset(urn: "${urn}") { urn } }` }) });
    expect(json(graphql)).toEqual({ data: { dataset: { urn } } });
    const restli = await https(`${proxy}/config`, certs.ca, { headers: auth });
    expect(restli.status).toBe(200);
    expect(json(restli)).toHaveProperty('versions');
  });

  test('plain HTTP is sent to HTTPS', async () => {
    const res = await fetch(`http://127.0.0.1:${ports.plain}/search?q=x`, { redirect: 'manual' });
    await res.arrayBuffer();
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toMatch(/^https:\/\/127\.0\.0\.1(:\d+)?\/search\?q=x$/);
  });

  test("the sign-in's callback is the proxy's https address, and forwarded headers count only from TRUSTED_PROXIES", async () => {
    const login = await https(`${proxy}/auth/login?returnTo=/search`, certs.ca);
    expect(login.status).toBe(302);
    const redirect = new URL(String(login.headers.location));
    expect(redirect.origin).toBe(provider.issuer);
    expect(redirect.searchParams.get('redirect_uri')).toBe(`${proxy}/auth/callback`);
    expect(String(login.headers['set-cookie'])).toContain('Secure');

    // The same headers from an address the setting does not name: not believed, neither
    // for the callback nor for the address failed authentications are counted against.
    const env = { AUTH_ENABLED: 'true', ROOT_TOKEN: TOKEN, AUTH_FAILURES_PER_MINUTE: '2', ...oidcEnv(provider.issuer) };
    const untrusting = await startTestServer({ env: { ...env, TRUSTED_PROXIES: '10.1.2.3' } });
    const trusting = await startTestServer({ env: { ...env, TRUSTED_PROXIES: '127.0.0.1' } });
    const badToken = async (url: string, client: string) => {
      const res = await fetch(`${url}${V3}/entity/dataset/x`, { headers: { authorization: 'Bearer not-a-token', 'x-forwarded-for': client } });
      await res.arrayBuffer();
      return res.status;
    };
    try {
      const res = await fetch(`${untrusting.url}/auth/login?returnTo=/search`, { redirect: 'manual', headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' } });
      await res.arrayBuffer();
      expect(new URL(res.headers.get('location')!).searchParams.get('redirect_uri')).toBe(`${untrusting.url}/auth/callback`);
      const clients = ['203.0.113.1', '203.0.113.2', '203.0.113.3'];
      const untrusted: number[] = [];
      const trusted: number[] = [];
      for (const client of clients) untrusted.push(await badToken(untrusting.url, client));
      for (const client of clients) trusted.push(await badToken(trusting.url, client));
      // One address (the connection's) for all three, against one per forwarded client.
      expect(untrusted).toEqual([401, 401, 429]);
      expect(trusted).toEqual([401, 401, 401]);
      expect([await badToken(trusting.url, clients[0]!), await badToken(trusting.url, clients[0]!)]).toEqual([401, 429]);
    } finally {
      await untrusting.stop();
      await trusting.stop();
    }
  }, 60_000);

  test('a person signs in through the proxy in a browser and lands back on the https console', async () => {
    const profile = tempDir('propgraph-proxy-browser-');
    let context: BrowserContext | undefined;
    try {
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        // Only this run's certificate is accepted besides the system's: TLS is still checked.
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--ignore-certificate-errors-spki-list=${certs.spki}`],
      });
      const page: Page = context.pages()[0] ?? (await context.newPage());
      const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();
      await page.goto(`${proxy}/search`);
      await heading('Sign in to the propgraph console');
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
      await heading('Sign in to the test provider');
      await page.getByLabel('Username').fill(PEOPLE.bob.login);
      await page.getByLabel('Password').fill(PEOPLE.bob.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await heading('Allow access');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByText('bob@example.com').first().waitFor();
      expect(page.url()).toBe(`${proxy}/search`);
    } finally {
      await context?.close();
    }
  }, 120_000);

  test('a streamed answer (a backup of 2,000 datasets) arrives whole through the proxy', async () => {
    const batches = Array.from({ length: 4 }, (_, b) => Array.from({ length: 500 }, (_, k) => ({ urn: datasetUrn(`proxy.bulk.${b}.${k}`), status: { value: { removed: false } }, datasetProperties: { value: { name: `bulk ${b}.${k}`, description: 'x'.repeat(200) } } })));
    for (const batch of batches) {
      const res = await https(`${proxy}${V3}/entity/dataset?async=true`, certs.ca, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(batch) });
      expect(res.status).toBe(200);
    }
    const backup = await https(`${proxy}${V3}/system/backup`, certs.ca, { headers: auth });
    expect(backup.status).toBe(200);
    const lines = gunzipSync(backup.body).toString('utf8').trimEnd().split('\n');
    // The last line closes the backup (domain/backupFormat.ts): a cut stream has none.
    const trailer = (JSON.parse(lines.at(-1)!) as { end: { tables: Record<string, number>; sha256: string } }).end;
    expect(trailer.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(trailer.tables.entity).toBeGreaterThanOrEqual(2001);
  }, 180_000);
});
