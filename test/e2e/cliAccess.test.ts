/**
 * Reaching the server from the CLI: init and its config file, the environment
 * overrides, a server that is down, a refused token; and the commands that act on
 * one urn: delete (soft and hard), system-update, tests evaluate.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { freePort } from '../../src/embedded/freePort.js';
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ensureCliBuilt, runCli, runCliOnTerminal, tempDir, writeFile, type CliResult } from './cliRunner.js';

let server: TestServer;
let home: string;

beforeAll(async () => {
  await ensureCliBuilt();
  server = await startTestServer();
  home = tempDir();
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

const cli = (args: string[], input?: string): Promise<CliResult> => runCli(args, { home, server: `${server.url}/gms`, ...(input !== undefined ? { input } : {}) });

async function defineProperty(name: string): Promise<string> {
  const urn = `urn:li:structuredProperty:${name}`;
  const res = await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc(urn)}/propertyDefinition`, {
    json: { value: { qualifiedName: name, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] } },
  });
  expect(res.status).toBe(200);
  return urn;
}

describe('init and the config file', () => {
  it('writes the server and token to ~/.propgraph/config.json with mode 0600', async () => {
    const initHome = tempDir();
    try {
      const result = await runCli(['init', '--server', `${server.url}/gms/`, '--token', 'secret-token'], { home: initHome });
      expect(result.code).toBe(0);
      const file = path.join(initHome, '.propgraph', 'config.json');
      // The test server runs without authentication: every token has admin scope there.
      expect(result.stdout).toBe(`Wrote ${file} (server ${server.url}/gms, with an access token of admin scope, checked).\n`);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ server: `${server.url}/gms`, token: 'secret-token' });
      expect(statSync(file).mode & 0o777).toBe(0o600);

      // The file alone is enough to reach the server (routes under <server>/openapi/...).
      const list = await runCli(['properties', 'list'], { home: initHome });
      expect(list.code).toBe(0);
    } finally {
      rmSync(initHome, { recursive: true, force: true });
    }
  });

  it('reads the token from --token-file or from stdin with --token -, so it is never on the command line (issue #29)', async () => {
    const initHome = tempDir();
    try {
      const file = path.join(initHome, '.propgraph', 'config.json');
      const tokenFile = writeFile(initHome, 'root-token', 'pgt_from-a-file\n');
      const fromFile = await runCli(['init', '--server', server.url, '--token-file', tokenFile], { home: initHome });
      expect(fromFile.code).toBe(0);
      expect(fromFile.stdout).toMatch(/with an access token of admin scope, checked\)\.\n$/);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ server: server.url, token: 'pgt_from-a-file' });

      const fromStdin = await runCli(['init', '--server', server.url, '--token', '-', '--force'], { home: initHome, input: 'pgt_from-stdin\n' });
      expect(fromStdin.code).toBe(0);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ server: server.url, token: 'pgt_from-stdin' });
    } finally {
      rmSync(initHome, { recursive: true, force: true });
    }
  });

  it('does not replace a configuration without a word: refuses without a terminal unless --force, asks on one (issue #41)', async () => {
    const initHome = tempDir();
    try {
      const file = path.join(initHome, '.propgraph', 'config.json');
      expect((await runCli(['init', '--server', server.url, '--token', 'first', '--no-check'], { home: initHome })).code).toBe(0);
      const again = await runCli(['init', '--server', server.url, '--token', 'first', '--no-check'], { home: initHome });
      expect(again.code).toBe(0);

      const refused = await runCli(['init', '--server', server.url, '--token', 'second', '--no-check'], { home: initHome });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(`Error: ${file} already holds server ${server.url}, with an access token; pass --force to replace it. Nothing was written.\n`);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ server: server.url, token: 'first' });

      const onTerminal = await runCliOnTerminal(['init', '--server', server.url, '--token', 'second', '--no-check'], { home: initHome, input: 'n\n' });
      if (onTerminal) {
        expect(onTerminal.stdout).toContain(`${file} already holds server ${server.url}, with an access token. Replace it? [y/N]`);
        expect(onTerminal.stdout).toContain('Nothing was written; the configuration is unchanged.');
        expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ server: server.url, token: 'first' });
      }

      const forced = await runCli(['init', '--server', server.url, '--token', 'second', '--no-check', '--force'], { home: initHome });
      expect(forced.code).toBe(0);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ server: server.url, token: 'second' });
    } finally {
      rmSync(initHome, { recursive: true, force: true });
    }
  });

  it('refuses a token file that cannot be read or holds no token, empty stdin, and both --token and --token-file; nothing is written', async () => {
    const initHome = tempDir();
    try {
      const file = path.join(initHome, '.propgraph', 'config.json');
      const missing = await runCli(['init', '--server', server.url, '--token-file', path.join(initHome, 'nope')], { home: initHome });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/Cannot read the token from .*nope: ENOENT/);
      const empty = await runCli(['init', '--server', server.url, '--token-file', writeFile(initHome, 'empty', '\n')], { home: initHome });
      expect(empty.code).toBe(2);
      expect(empty.stderr).toMatch(/does not hold a token: expected one line with the token and nothing else/);
      const noInput = await runCli(['init', '--server', server.url, '--token', '-'], { home: initHome, input: '' });
      expect(noInput.code).toBe(2);
      expect(noInput.stderr).toMatch(/stdin \(--token -\) does not hold a token/);
      const both = await runCli(['init', '--server', server.url, '--token', 't', '--token-file', writeFile(initHome, 't', 't')], { home: initHome });
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(/Give the token once: --token or --token-file, not both/);
      expect(() => statSync(file)).toThrow();
    } finally {
      rmSync(initHome, { recursive: true, force: true });
    }
  });

  it('needs --server when not on a terminal, and rejects an address that is not http(s)', async () => {
    const initHome = tempDir();
    try {
      const missing = await runCli(['init'], { home: initHome });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('--server is required when not on a terminal');
      const bad = await runCli(['init', '--server', 'ftp://example.com'], { home: initHome });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('only http and https are supported');
    } finally {
      rmSync(initHome, { recursive: true, force: true });
    }
  });

  it('PROPGRAPH_SERVER overrides the config file; a plain address without /gms works too', async () => {
    const initHome = tempDir();
    try {
      const dead = await freePort();
      expect((await runCli(['init', '--server', `http://127.0.0.1:${dead}`, '--no-check'], { home: initHome })).code).toBe(0);
      const result = await runCli(['properties', 'list'], { home: initHome, server: server.url });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    } finally {
      rmSync(initHome, { recursive: true, force: true });
    }
  });

  it('refuses to write a configuration for a server that does not answer (exit 3); --no-check writes it anyway', async () => {
    const initHome = tempDir();
    try {
      const dead = await freePort();
      const file = path.join(initHome, '.propgraph', 'config.json');
      const refused = await runCli(['init', '--server', `http://127.0.0.1:${dead}`, '--token', 't'], { home: initHome });
      expect(refused.code).toBe(3);
      expect(refused.stderr).toBe(
        `Error: Cannot reach the propgraph server at http://127.0.0.1:${dead} (connection refused). Is it running? Check the address with \`propgraph init\` or PROPGRAPH_SERVER. ` +
          'Nothing was written; pass --no-check to write the configuration anyway.\n',
      );
      expect(() => statSync(file)).toThrow();
      const unchecked = await runCli(['init', '--server', `http://127.0.0.1:${dead}`, '--token', 't', '--no-check'], { home: initHome });
      expect(unchecked.code).toBe(0);
      expect(unchecked.stdout).toBe(`Wrote ${file} (server http://127.0.0.1:${dead}, with an access token, not checked).\n`);
    } finally {
      rmSync(initHome, { recursive: true, force: true });
    }
  });

  it('without any configuration, says how to configure and exits 3', async () => {
    const bare = tempDir();
    try {
      const result = await runCli(['properties', 'list'], { home: bare });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain('No propgraph server configured: run `propgraph init --server <url>` or set PROPGRAPH_SERVER.');
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});

describe('a server that cannot be reached or refuses the token', () => {
  it('a server that is down: a clear message and exit 3', async () => {
    const port = await freePort();
    const file = writeFile(home, 'down.yaml', '- id: down.prop\n  type: string\n  entity_types: [dataset]\n');
    const result = await runCli(['properties', 'upsert', '-f', file], { home, server: `http://127.0.0.1:${port}/gms` });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `Error: Cannot reach the propgraph server at http://127.0.0.1:${port}/gms (connection refused). Is it running? Check the address with \`propgraph init\` or PROPGRAPH_SERVER.\n`,
    );
  });

  describe('a bad token', () => {
    // The server's auth layer does not exist yet (AUTH_ENABLED is off in tests and any
    // token passes), so this stub stands in for it: it answers 401 the way docs/contract.md §4 says
    // and records the headers the CLI sent.
    let stub: Server;
    let stubUrl: string;
    const seen: IncomingHttpHeaders[] = [];
    beforeAll(async () => {
      stub = createServer((req, res) => {
        seen.push(req.headers);
        const ok = req.headers.authorization === 'Bearer good-token';
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
        res.end(JSON.stringify(ok ? { entities: [] } : { error: 'Unauthorized', message: 'Invalid or expired token' }));
      });
      await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
      stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/gms`;
    });
    afterAll(async () => {
      await new Promise((resolve) => stub.close(resolve));
    });

    it('sends the token as a bearer header; a refused one ends with a clear message and exit 4', async () => {
      const refused = await runCli(['properties', 'list'], { home, server: stubUrl, token: 'bad-token' });
      expect(seen.at(-1)?.authorization).toBe('Bearer bad-token');
      expect(refused.code).toBe(4);
      expect(refused.stderr).toBe(
        `Error: The server at ${stubUrl} refused the request: 401 Unauthorized (Invalid or expired token). The access token was refused; configure a valid one with \`propgraph init --token <token>\` or PROPGRAPH_TOKEN.\n`,
      );
      const accepted = await runCli(['properties', 'list'], { home, server: stubUrl, token: 'good-token' });
      expect(accepted.code).toBe(0);
    });

    it('init refuses a token the server refuses (exit 4) and writes nothing', async () => {
      const initHome = tempDir();
      try {
        const result = await runCli(['init', '--server', stubUrl, '--token', 'bad-token'], { home: initHome });
        expect(result.code).toBe(4);
        expect(result.stderr).toMatch(/^Error: The server at .* refused the access token: .*401 Unauthorized \(Invalid or expired token\).* Nothing was written; pass --no-check/);
        expect(() => statSync(path.join(initHome, '.propgraph', 'config.json'))).toThrow();
      } finally {
        rmSync(initHome, { recursive: true, force: true });
      }
    });

    it('with no token at all, says that none is configured', async () => {
      const result = await runCli(['properties', 'get', '--urn', 'x.y'], { home, server: stubUrl });
      expect(seen.at(-1)?.authorization).toBeUndefined();
      expect(result.code).toBe(4);
      expect(result.stderr).toContain('No access token is configured with `propgraph init --token <token>` or PROPGRAPH_TOKEN.');
    });
  });
});

describe('delete', () => {
  it('--urn soft deletes: status.removed becomes true and nothing is removed', async () => {
    const urn = await defineProperty('del.soft');
    const result = await cli(['delete', '--urn', urn]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Soft deleted ${urn}.`);
    const status = await http(server.url, 'GET', `/openapi/v3/entity/structuredProperty/${enc(urn)}/status`);
    expect(status.body.status.value).toEqual({ removed: true });
    expect((await http(server.url, 'GET', `/openapi/v3/entity/structuredProperty/${enc(urn)}/propertyDefinition`)).status).toBe(200);
  });

  it('--hard asks first; anything but yes keeps the entity', async () => {
    const urn = await defineProperty('del.keep');
    const result = await cli(['delete', '--urn', urn, '--hard'], 'n\n');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`This will permanently delete ${urn} and remove its values from every entity that holds them (no values). This cannot be undone. Continue? [y/N]`);
    expect(result.stderr).toContain(`Aborted; ${urn} was not deleted.`);
    expect((await http(server.url, 'GET', `/openapi/v3/entity/structuredProperty/${enc(urn)}`)).status).toBe(200);
    // No answer at all (stdin closed) is a no as well.
    expect((await cli(['delete', '--urn', urn, '--hard'])).code).toBe(1);
  });

  it('--hard with a yes, or with --force, removes the entity', async () => {
    const asked = await defineProperty('del.asked');
    const yes = await cli(['delete', '--urn', asked, '--hard'], 'y\n');
    expect(yes.code).toBe(0);
    expect(yes.stdout).toBe(`Hard deleted ${asked}. Its values are being removed from entities by a background job.\n`);
    expect((await http(server.url, 'GET', `/openapi/v3/entity/structuredProperty/${enc(asked)}`)).status).toBe(404);

    const forced = await defineProperty('del.forced');
    const result = await cli(['delete', '--urn', forced, '--hard', '--force']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect((await http(server.url, 'GET', `/openapi/v3/entity/structuredProperty/${enc(forced)}`)).status).toBe(404);
  });

  it('deletes datasets too; a missing entity or a malformed urn is reported', async () => {
    const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,del.table,PROD)';
    await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: [{ urn: dataset, status: { value: { removed: false } } }] });
    const hard = await cli(['delete', '--urn', dataset, '--hard', '--force']);
    expect(hard.stdout).toBe(`Hard deleted ${dataset}.\n`);
    const again = await cli(['delete', '--urn', dataset]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${dataset} does not exist; nothing was deleted.`);
    const malformed = await cli(['delete', '--urn', 'urn:li:dataset:(oops']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("'urn:li:dataset:(oops' is not a valid urn");
  });
});

describe('system-update and tests evaluate', () => {
  it('system-update starts the reindex job and follows it to the end', async () => {
    const searching = await startTestServer({ search: true });
    try {
      const result = await runCli(['system-update'], { home, server: searching.url });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^System update started \(job \S+\)\.\nSystem update finished \(job \S+/);
    } finally {
      await searching.stop();
    }
  });

  it('system-update on a server without search says so and exits non-zero', async () => {
    const result = await cli(['system-update']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Search is not available/);
  });

  it('tests evaluate prints passing and failing tests', async () => {
    const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,eval.table,PROD)';
    await http(server.url, 'POST', '/openapi/v3/entity/dataset', { json: [{ urn: dataset, status: { value: { removed: false } } }] });
    const test = 'urn:li:test:cli-eval';
    const definition = JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'urn', operator: 'exists' }] });
    await http(server.url, 'POST', `/openapi/v3/entity/test/${enc(test)}/testInfo`, { query: { createIfNotExists: 'false' }, json: { value: { name: 'has urn', category: 'c', definition: { type: 'JSON', json: definition } } } });
    const result = await cli(['tests', 'evaluate', '--urn', dataset, '--push']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`PASS ${test}`);
    expect(result.stdout).toContain(`1 passing, 0 failing; results stored on ${dataset}.`);
    const stored = await http(server.url, 'GET', `/openapi/v3/entity/dataset/${enc(dataset)}/testResults`);
    expect(stored.body.testResults.value.passing).toEqual([{ test, type: 'SUCCESS', lastComputed: { time: expect.any(Number), actor: expect.stringMatching(/^urn:li:corpuser:/) } }]);
  });
});
