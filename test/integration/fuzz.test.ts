/**
 * Property-based hostile input (issues #5, #14): generated malformed requests across REST
 * bodies, URNs, query strings, GraphQL variables and CLI YAML, oversized GraphQL
 * documents and representations, and request bodies that stall. Every request is built
 * to be invalid, so the server must refuse it with a 4xx (never a 5xx, never a
 * crash) and the database must be exactly as before the run.
 */
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import fc from 'fast-check';
import { CliError } from '../../src/cli/errors.js';
import { parseDatasetFile } from '../../src/cli/files/datasetFile.js';
import { parsePropertyFile } from '../../src/cli/files/propertyFile.js';
import { parseYaml } from '../../src/cli/files/yamlFile.js';
import { tryParseDataType } from '../../src/domain/typeUrns.js';
import { LIMITS } from '../../src/domain/limits.js';
import { tryParseUrn } from '../../src/domain/urn.js';
import { databaseChecksum } from '../support/dbChecksum.js';
import {
  badCharacter,
  bearerSpelling,
  deepDocument,
  deepNesting,
  nonEntityRepresentations,
  overBudgetOperation,
  oversizedTrace,
  traceIdPastChangeIds,
  withDeepValue,
  withInserted,
  withReservedKey,
  type Json,
} from '../support/hostileInput.js';
import { enc } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ensureCliBuilt, runCli, tempDir, writeFile } from '../e2e/cliRunner.js';
import { nonEmpty } from '../support/nonEmpty.js';

const ROOT = 'fuzz-root';
const V3 = '/openapi/v3';
const P = 'urn:li:structuredProperty:io.fuzz.retention';
const S = 'urn:li:structuredProperty:io.fuzz.owner';
const SOFT = 'urn:li:structuredProperty:io.fuzz.retired';
const D = 'urn:li:dataset:(urn:li:dataPlatform:hive,fuzz.orders,PROD)';
/** A dataset whose history holds large values, and the property that holds them (issue #46 item 2). */
const WIDE = 'urn:li:dataset:(urn:li:dataPlatform:hive,fuzz.wide,PROD)';
const NOTES = 'urn:li:structuredProperty:io.fuzz.notes';

let server: TestServer;
let baseline: string;
/** A read token of its own, so that its rate-limit bucket starts fresh. */
let reader: string;
const counts: Record<string, number> = {};
const serverErrors: string[] = [];

interface RawRequest {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
}

async function send(category: string, req: RawRequest): Promise<number> {
  counts[category] = (counts[category] ?? 0) + 1;
  const headers: Record<string, string> = { authorization: `Bearer ${ROOT}` };
  if (req.contentType !== undefined) headers['content-type'] = req.contentType;
  const res = await fetch(server.url + req.path, { method: req.method, headers, ...(req.body !== undefined ? { body: req.body } : {}) });
  const text = await res.text();
  if (res.status >= 500) serverErrors.push(`${category}: ${req.method} ${req.path} ${req.body?.slice(0, 200)} -> ${res.status} ${text.slice(0, 200)}`);
  return res.status;
}

function expectRefused(status: number): void {
  expect(status).toBeGreaterThanOrEqual(400);
  expect(status).toBeLessThan(500);
}

async function arrange(method: string, path: string, json: unknown, query = ''): Promise<void> {
  const res = await fetch(`${server.url}${path}${query}`, { method, headers: { authorization: `Bearer ${ROOT}`, 'content-type': 'application/json' }, body: JSON.stringify(json) });
  if (res.status !== 200) throw new Error(`arrange ${path}: ${res.status} ${await res.text()}`);
}

beforeAll(async () => {
  await ensureCliBuilt();
  // With search, so query strings reach the search engine too.
  // A short request timeout, so that stalled bodies are cut off within a test.
  // Refusals change nothing: checked on a database that no background test evaluation writes to.
  server = await startTestServer({ search: true, env: { AUTH_ENABLED: 'true', ROOT_TOKEN: ROOT, RATE_LIMIT_PER_MINUTE: '1000000', AUTH_FAILURES_PER_MINUTE: '1000000', REQUEST_TIMEOUT_MS: '2000', TEST_EVALUATION: 'false' } });
  const def = (qn: string, extra: Record<string, unknown>) => ({ value: { qualifiedName: qn, entityTypes: ['urn:li:entityType:svc.dataset'], ...extra } });
  await arrange('POST', `${V3}/entity/structuredProperty/${enc(P)}/propertyDefinition`, def('io.fuzz.retention', { valueType: 'urn:li:dataType:svc.number', allowedValues: [{ value: { double: 30 } }, { value: { double: 60 } }] }));
  await arrange('POST', `${V3}/entity/structuredProperty/${enc(S)}/propertyDefinition`, def('io.fuzz.owner', { valueType: 'urn:li:dataType:svc.string' }));
  await arrange('POST', `${V3}/entity/structuredProperty/${enc(SOFT)}/propertyDefinition`, def('io.fuzz.retired', { valueType: 'urn:li:dataType:svc.string' }));
  await arrange('POST', `${V3}/entity/structuredProperty/${enc(SOFT)}/status`, { value: { removed: true } }, '?createIfNotExists=false');
  await arrange('POST', `${V3}/entity/dataset`, [{ urn: D, status: { value: { removed: false } } }]);
  await arrange('POST', `${V3}/entity/dataset/${enc(D)}/structuredProperties`, { value: { properties: [{ propertyUrn: P, values: [{ double: 60 }] }, { propertyUrn: S, values: [{ string: 'team' }] }] } }, '?createIfNotExists=false');
  await arrange('POST', `${V3}/entity/structuredProperty/${enc(NOTES)}/propertyDefinition`, def('io.fuzz.notes', { valueType: 'urn:li:dataType:svc.string', cardinality: 'MULTIPLE' }));
  await arrange('POST', `${V3}/entity/dataset`, [{ urn: WIDE, status: { value: { removed: false } } }]);
  for (let v = 0; v < 8; v++) {
    const values = Array.from({ length: 5 }, (_, i) => ({ string: `${v}-${i}-${'w'.repeat(9_000)}` }));
    await arrange('POST', `${V3}/entity/dataset/${enc(WIDE)}/structuredProperties`, { value: { properties: [{ propertyUrn: NOTES, values }] } }, '?createIfNotExists=false');
  }
  const created = await fetch(`${server.url}${V3}/tokens`, { method: 'POST', headers: { authorization: `Bearer ${ROOT}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'fuzz-reader', scope: 'read' }) });
  reader = ((await created.json()) as { accessToken: string }).accessToken;
  baseline = await databaseChecksum(server.database.sql);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  console.log(`fuzz: ${total} generated malformed requests (${JSON.stringify(counts)}), ${serverErrors.length} server errors`);
});

const RUNS = { numRuns: 80 };
const json = fc.jsonValue({ maxDepth: 4 });
/** A valid value of P would be 30 or 60 as a double or numeric string: everything else is invalid. */
const invalidRetentionValue = json.filter((v) => {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return true;
  const keys = Object.keys(v);
  if (keys.length !== 1 || (keys[0] !== 'double' && keys[0] !== 'string')) return true;
  const n = Number((v as Record<string, unknown>)[keys[0]!]);
  return !(n === 30 || n === 60) || (typeof (v as Record<string, unknown>)[keys[0]!] !== 'number' && typeof (v as Record<string, unknown>)[keys[0]!] !== 'string');
});
const notAnUrn = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('urn:li:dataset:(', 'urn:li:dataset:()', 'urn:li:x:y', 'urn:li:dataset:(urn:li:dataPlatform:a,b,MARS)', 'urn:li::x', '%', '..%2F..')).filter((s) => !tryParseUrn(s).ok);
const path = (urn: string, suffix = '') => `${V3}/entity/dataset/${enc(urn)}${suffix}`;

test('structuredProperties bodies with invalid values or shapes are refused', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        invalidRetentionValue.map((v) => ({ value: { properties: [{ propertyUrn: P, values: [v] }] } })),
        json.filter((j) => !(j && typeof j === 'object' && !Array.isArray(j) && 'properties' in j)).map((j) => ({ value: j })),
        fc.record({ propertyUrn: fc.oneof(notAnUrn, fc.constant(SOFT)), values: fc.array(json, { maxLength: 3 }) }).map((e) => ({ value: { properties: [e] } })),
        json.filter((j) => !(j && typeof j === 'object' && !Array.isArray(j) && Object.keys(j).length === 1 && 'value' in j)),
      ),
      async (body) => expectRefused(await send('rest-values', { method: 'POST', path: path(D, '/structuredProperties?createIfNotExists=false'), body: JSON.stringify(body), contentType: 'application/json' })),
    ),
    RUNS,
  );
});

test('definition bodies are refused: for a soft-deleted property, or with a value type that does not exist', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.dictionary(fc.constantFrom('qualifiedName', 'valueType', 'entityTypes', 'cardinality', 'allowedValues', 'version', 'immutable', 'typeQualifier', 'description', 'extra'), json).map((value) => ({ target: SOFT, body: { value } })),
        fc.record({ valueType: fc.string().filter((t) => tryParseDataType(t) === undefined), cardinality: json }).map((r) => ({
          target: 'urn:li:structuredProperty:io.fuzz.new',
          body: { value: { qualifiedName: 'io.fuzz.new', entityTypes: ['urn:li:entityType:svc.dataset'], ...r } },
        })),
      ),
      async ({ target, body }) =>
        expectRefused(await send('rest-definitions', { method: 'POST', path: `${V3}/entity/structuredProperty/${enc(target)}/propertyDefinition?createIfNotExists=false`, body: JSON.stringify(body), contentType: 'application/json' })),
    ),
    RUNS,
  );
});

test('batch creates naming an invalid urn, and patches ending in a failing test, are refused whole', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.tuple(notAnUrn, json).map(([urn, aspect]) => ({ kind: 'batch', body: [{ urn: D, status: { value: { removed: true } } }, { urn, status: { value: aspect } }] })),
        fc.array(fc.record({ op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'x'), path: fc.oneof(fc.string(), fc.constant(`/properties/${P}`), fc.constant('/properties/0')), value: json }), { maxLength: 4 }).map((ops) => ({
          kind: 'patch',
          body: { patch: [...ops, { op: 'test', path: '/properties', value: 'never equal' }], arrayPrimaryKeys: { properties: ['propertyUrn'] } },
        })),
      ),
      async ({ kind, body }) =>
        expectRefused(
          await send(`rest-${kind}`, kind === 'batch'
            ? { method: 'POST', path: `${V3}/entity/dataset`, body: JSON.stringify(body), contentType: 'application/json' }
            : { method: 'PATCH', path: path(D, '/structuredProperties'), body: JSON.stringify(body), contentType: 'application/json-patch+json' }),
        ),
    ),
    RUNS,
  );
});

test('invalid urns in paths are refused on reads, writes and deletes', async () => {
  await fc.assert(
    // An empty path segment, or a dot segment (which the URL parser removes), would address another route, so none is here.
    fc.asyncProperty(notAnUrn.filter((u) => u.length > 0 && u !== '.' && u !== '..'), fc.constantFrom('GET', 'POST', 'DELETE', 'PATCH'), fc.constantFrom('', '/status', '/structuredProperties'), fc.constantFrom('dataset', 'structuredProperty', 'schemaField', 'DATASET'), async (urn, method, suffix, type) => {
      const withBody = method === 'POST' || method === 'PATCH';
      const status = await send('urns', {
        method,
        path: `${V3}/entity/${type}/${enc(urn)}${suffix}`,
        ...(withBody ? { body: JSON.stringify(method === 'PATCH' ? { patch: [] } : { value: { removed: true } }), contentType: 'application/json' } : {}),
      });
      expectRefused(status);
    }),
    RUNS,
  );
});

test('raw bodies that are not JSON, or not of a JSON media type, are refused', async () => {
  await fc.assert(
    fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom('application/json', 'text/plain', 'application/xml', 'application/json-patch+json', 'multipart/form-data', ''), async (body, contentType) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
      fc.pre(parsed === undefined || typeof parsed !== 'object' || parsed === null || Array.isArray(parsed));
      expectRefused(await send('raw-bodies', { method: 'POST', path: path(D, '/structuredProperties?createIfNotExists=false'), body, contentType }));
    }),
    RUNS,
  );
});

test('query strings: any parameters on reads never fail the server, and bad ones on writes are refused', async () => {
  const param = fc.tuple(fc.constantFrom('count', 'scrollId', 'aspects', 'systemMetadata', 'query', 'sort', 'sortOrder', 'createIfNotExists', 'async', 'status'), fc.string({ maxLength: 30 }));
  await fc.assert(
    fc.asyncProperty(fc.array(param, { maxLength: 5 }), fc.constantFrom(`${V3}/entity/dataset`, `${V3}/entity/structuredProperty`, path(D), `${V3}/jobs`), async (params, target) => {
      const qs = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
      const status = await send('query-strings', { method: 'GET', path: `${target}?${qs}` });
      expect(status).toBeLessThan(500);
    }),
    RUNS,
  );
  await fc.assert(
    fc.asyncProperty(fc.string({ maxLength: 20 }).filter((s) => !/^(true|false)$/i.test(s) && s !== ''), async (junk) => {
      expectRefused(await send('query-strings', { method: 'POST', path: `${path(D, '/structuredProperties')}?createIfNotExists=${encodeURIComponent(junk)}`, body: JSON.stringify({ value: { properties: [] } }), contentType: 'application/json' }));
    }),
    { numRuns: 30 },
  );
});

test('GraphQL variables of any shape are refused without a server error', async () => {
  const gqlBody = (query: string, variables: unknown) => JSON.stringify({ query, variables });
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.record({ assetUrn: fc.oneof(notAnUrn, fc.constant('urn:li:dataset:(urn:li:dataPlatform:hive,fuzz.never,PROD)')), structuredPropertyInputParams: json }).map((input) =>
          gqlBody('mutation m($input: UpsertStructuredPropertiesInput!) { upsertStructuredProperties(input: $input) { properties { associatedUrn } } }', { input })),
        fc.record({ id: fc.constant('io.fuzz.retention'), valueType: fc.oneof(fc.string(), fc.constant('urn:li:dataType:number')), entityTypes: fc.array(fc.string(), { maxLength: 3 }), allowedValues: json }).map((input) =>
          gqlBody('mutation m($input: CreateStructuredPropertyInput!) { createStructuredProperty(input: $input) { urn } }', { input })),
        fc.record({ urn: fc.constant(SOFT), description: json, newAllowedValues: json }).map((input) =>
          gqlBody('mutation m($input: UpdateStructuredPropertyInput!) { updateStructuredProperty(input: $input) { urn } }', { input })),
        json.map((v) => gqlBody('mutation m($input: RemoveStructuredPropertiesInput!) { removeStructuredProperties(input: $input) { properties { associatedUrn } } }', v)),
        fc.string({ maxLength: 300 }),
      ),
      async (body) => {
        const status = await send('graphql', { method: 'POST', path: '/api/graphql', body, contentType: 'application/json' });
        expect(status).toBeLessThan(500);
      },
    ),
    { numRuns: 120 },
  );
});

/** Whether the in-process file validators refuse `source` with a CliError (that `accept` takes), and throw nothing else. */
function cliRefuses(source: string, asDataset: boolean, accept: (err: CliError) => boolean = () => true): boolean {
  try {
    const file = parseYaml('fuzz.yaml', source);
    if (asDataset) parseDatasetFile(file);
    else parsePropertyFile(file);
    return false;
  } catch (err) {
    return err instanceof CliError && accept(err);
  }
}

test('CLI YAML: the file validators refuse any malformed file with a CliError and never throw anything else', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v))), fc.boolean(), (text, asDataset) => {
      counts['cli-yaml-in-process'] = (counts['cli-yaml-in-process'] ?? 0) + 1;
      // An entry with an unknown key is appended so that no generated file can be valid.
      return cliRefuses(`${text}\n- id: io.fuzz.x\n  typo_key: 1\n`, asDataset);
    }),
    { numRuns: 200 },
  );
});

test('CLI YAML through the built command against the server: refused with exit code 2, nothing written', async () => {
  const home = tempDir();
  try {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 120 }), fc.constantFrom('properties', 'dataset'), async (text, kind) => {
        counts['cli-yaml-subprocess'] = (counts['cli-yaml-subprocess'] ?? 0) + 1;
        const file = writeFile(home, 'fuzz.yaml', `${text}\n- id: io.fuzz.x\n  typo_key: 1\n`);
        const result = await runCli([kind, 'upsert', '-f', file], { home, server: server.url, token: ROOT });
        expect(result.code).toBe(2);
      }),
      { numRuns: 12 },
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

/** Plausible bodies of every route that reads one, as templates for the input-limit generators. */
const TEMPLATES: Array<{ name: string; method: string; path: string; body: Json; contentType?: string }> = [
  { name: 'values', method: 'POST', path: path(D, '/structuredProperties?createIfNotExists=false'), body: { value: { properties: [{ propertyUrn: S, values: [{ string: 'team' }] }] } } },
  {
    name: 'definition',
    method: 'POST',
    path: `${V3}/entity/structuredProperty/${enc('urn:li:structuredProperty:io.fuzz.limits')}/propertyDefinition`,
    body: { value: { qualifiedName: 'io.fuzz.limits', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], displayName: 'Limits', allowedValues: [{ value: { string: 'a' }, description: 'b' }] } },
  },
  { name: 'batch', method: 'POST', path: `${V3}/entity/dataset`, body: [{ urn: D, datasetProperties: { value: { description: 'orders', customProperties: { team: 'core' } } } }] },
  { name: 'v2 aspect', method: 'POST', path: `/openapi/v2/entity/dataset/${enc(D)}/datasetProperties?createIfNotExists=false`, body: { description: 'orders', customProperties: { k: 'v' } } },
  { name: 'patch', method: 'PATCH', path: path(D, '/structuredProperties'), body: { patch: [{ op: 'add', path: `/properties/${S}`, value: { propertyUrn: S, values: [{ string: 'x' }] } }], arrayPrimaryKeys: { properties: ['propertyUrn'] } }, contentType: 'application/json-patch+json' },
  { name: 'system metadata', method: 'POST', path: path(D, '/status?createIfNotExists=false'), body: { value: { removed: false }, systemMetadata: { runId: 'run', properties: { k: 'v' } }, headers: { 'If-Version-Match': '1' } } },
  { name: 'token', method: 'POST', path: `${V3}/tokens`, body: { name: 'fuzz', scope: 'read', description: 'a token' } },
  { name: 'evaluate', method: 'POST', path: '/gms/test?action=evaluate', body: { urn: D, testUrns: ['urn:li:test:none'] } },
  { name: 'testInfo', method: 'POST', path: `${V3}/entity/test/${enc('urn:li:test:fuzz')}/testInfo?createIfNotExists=false`, body: { value: { name: 'n', category: 'c', definition: { type: 'JSON', json: '{"on": {"types": ["dataset"]}, "rules": []}' } } } },
  {
    name: 'graphql',
    method: 'POST',
    path: '/api/graphql',
    body: { query: 'mutation m($input: CreateStructuredPropertyInput!) { createStructuredProperty(input: $input) { urn } }', variables: { input: { id: 'io.fuzz.gql', valueType: 'urn:li:dataType:string', entityTypes: ['urn:li:entityType:dataset'], description: 'd' } } },
  },
];
const template = fc.constantFrom(...TEMPLATES);
const sendTemplate = (category: string, t: (typeof TEMPLATES)[number], body: string) => send(category, { method: t.method, path: t.path, body, contentType: t.contentType ?? 'application/json' });

test('input limits: a lone surrogate or U+0000 in any string or key of any body is refused', async () => {
  await fc.assert(
    fc.asyncProperty(template, fc.nat(), fc.nat(), badCharacter, async (t, which, position, char) => {
      expectRefused(await sendTemplate('limits-characters', t, JSON.stringify(withInserted(t.body, which, position, char))));
    }),
    { numRuns: 150 },
  );
});

test('input limits: JSON nested past 64 levels anywhere in any body is refused', async () => {
  await fc.assert(
    fc.asyncProperty(template, fc.nat(), deepNesting, fc.boolean(), async (t, which, depth, objects) => {
      expectRefused(await sendTemplate('limits-depth', t, withDeepValue(t.body, which, depth, objects)));
    }),
    { numRuns: 60 },
  );
});

test('input limits: U+0000 in every other decoded input (path, query, cursor, literal, definition text) is refused', async () => {
  const nulText = fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 })).map(([a, b]) => `${a}\u0000${b}`);
  const request = fc.oneof(
    nulText.map((text) => ({ method: 'GET', path: path(`urn:li:dataset:(urn:li:dataPlatform:hive,${text},PROD)`) })),
    fc.tuple(fc.constantFrom('query', 'aspects', 'sort', 'count', 'status', 'systemMetadata', 'x'), nulText, fc.constantFrom(`${V3}/entity/dataset`, `${V3}/entity/test`, `${V3}/jobs`, path(D))).map(([name, text, target]) => ({
      method: 'GET',
      path: `${target}?${name}=${encodeURIComponent(text)}`,
    })),
    nulText.map((text) => ({ method: 'GET', path: `${V3}/entity/test?scrollId=${Buffer.from(`urn:li:${text}`).toString('base64url')}` })),
    nulText.map((text) => ({
      method: 'POST',
      path: '/api/graphql',
      contentType: 'application/json',
      body: JSON.stringify({ query: `mutation { upsertStructuredProperties(input: {assetUrn: "${D}", structuredPropertyInputParams: [{structuredPropertyUrn: "${S}", values: [{stringValue: ${JSON.stringify(text)}}]}]}) { properties { associatedUrn } } }` }),
    })),
    nulText.map((text) => ({
      method: 'POST',
      path: `${V3}/entity/test/${enc('urn:li:test:fuzz')}/testInfo?createIfNotExists=false`,
      contentType: 'application/json',
      body: JSON.stringify({ value: { name: 'n', category: 'c', definition: { type: 'JSON', json: `{"on": {"types": ["dataset"]}, "rules": [{"property": "urn", "operator": "equals", "values": [${JSON.stringify(text)}]}]}` } } }),
    })),
  );
  await fc.assert(fc.asyncProperty(request, async (req) => expectRefused(await send('limits-decoded', req))), { numRuns: 120 });
});

test('input limits: CLI files with a bad character or deep nesting are refused with a CliError', () => {
  // YAML's own escapes put the character in: "\0" is U+0000, "\ud800" a lone surrogate.
  const escaped = badCharacter.map((c) => `"x${c === '\u0000' ? '\\0' : `\\u${c.charCodeAt(0).toString(16)}`}"`);
  const deep = deepNesting.map((d) => `${'['.repeat(d)}${']'.repeat(d)}`);
  fc.assert(
    fc.property(fc.oneof(escaped, deep), fc.constantFrom('description', 'display_name', 'cardinality'), fc.boolean(), (value, key, asDataset) => {
      counts['limits-cli'] = (counts['limits-cli'] ?? 0) + 1;
      const source = asDataset ? `- id: fuzz.t\n  platform: hive\n  structured_properties:\n    io.fuzz.owner: ${value}\n` : `- id: io.fuzz.x\n  type: string\n  entity_types: [dataset]\n  ${key}: ${value}\n`;
      return cliRefuses(source, asDataset, (err) => /U\+0000|surrogate|nested deeper/.test(err.message));
    }),
    { numRuns: 100 },
  );
});

const GRAPHQL_NAMES = ['dataset', 'urn', '__typename', 'structuredProperties', 'entity', 'listTests', 'x', 'a_b'];
const junkToken = fc.oneof(fc.constantFrom(...GRAPHQL_NAMES), fc.constantFrom('{', '}', '(', ')', '[', ']', ':', '$', '@', '...', '!', '=', '|', '&'), fc.integer().map(String), fc.constant('"s"'));

/**
 * GraphQL documents over a document limit: tokens; one field spelled so often that checking
 * its spellings merge passes 25,000 comparisons (225 spellings, fragments merged in); more
 * than 50 fragments spread in one selection set; depth over 25 (docs/security.md, "Limits").
 */
const oversizedDocument = fc.oneof(
  fc.tuple(fc.array(junkToken, { minLength: 50, maxLength: 50 }), fc.integer({ min: 250, max: 2000 })).map(([tokens, times]) => `{ ${Array.from({ length: times }, () => tokens.join(' ')).join(' ')} }`),
  fc.tuple(fc.constantFrom(...GRAPHQL_NAMES), fc.integer({ min: 226, max: 3000 })).map(([name, times]) => `{ ${`${name} `.repeat(times)}}`),
  fc.tuple(fc.constantFrom('__typename', 'dataset(urn: "u") { urn }'), fc.integer({ min: 226, max: 600 }), fc.boolean()).map(([field, times, inline]) =>
    inline ? `{ ${`... on Query { ${field} } `.repeat(times)}}` : `{ ${Array.from({ length: times }, (_, i) => `...F${i}`).join(' ')} } ${Array.from({ length: times }, (_, i) => `fragment F${i} on Query { ${field} }`).join(' ')}`,
  ),
  fc.integer({ min: 26, max: 400 }).map((depth) => `{ ${'entity(urn: "u") { ... on Dataset { platform { '.repeat(depth)}urn${' } } }'.repeat(depth)} }`),
);

test('oversized GraphQL documents are refused with a 4xx, each in bounded time', async () => {
  await fc.assert(
    fc.asyncProperty(oversizedDocument, async (query) => {
      const started = Date.now();
      expectRefused(await send('graphql-oversized', { method: 'POST', path: '/api/graphql', body: JSON.stringify({ query }), contentType: 'application/json' }));
      // Unbounded, the worst of these held the server for seconds; a loaded machine needs some slack.
      expect(Date.now() - started).toBeLessThan(2000);
    }),
    { numRuns: 60 },
  );
});

test('fragments spread twice at every level (up to 2^60 spellings) resolve what they name once: answered at once, or refused for their number (over 50 merged into one selection set)', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 10, max: 60 }), async (levels) => {
      const query = `{ ...F0 } ${Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(' ')} fragment F${levels} on Query { __typename }`;
      const started = Date.now();
      const res = await fetch(`${server.url}/api/graphql`, { method: 'POST', headers: { authorization: `Bearer ${ROOT}`, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
      // F0 ... F<levels>: levels + 1 fragments merged into the operation's selection set.
      const answer = (await res.json()) as { data?: unknown; errors?: Array<{ message: string }> };
      if (levels + 1 <= 50) expect([res.status, answer]).toEqual([200, { data: { __typename: 'Query' } }]);
      else expect([res.status, answer.errors?.[0]?.message]).toEqual([400, 'Query spreads more than the limit of 50 fragments in one selection set']);
      expect(Date.now() - started).toBeLessThan(2000);
    }),
    { numRuns: 20 },
  );
});

test('_entities with more representations than the limit, of any shape, is refused with a 4xx', async () => {
  const representation = fc.oneof(
    fc.record({ __typename: fc.constantFrom('Test', 'Dataset', 'StructuredPropertyEntity', 'Nope'), urn: fc.oneof(notAnUrn, fc.constant(D), fc.constant(P)) }),
    json,
  );
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1001, max: 4000 }), representation, fc.constantFrom('urn', 'urn type', '__typename'), async (n, rep, selection) => {
      const body = JSON.stringify({ query: `query q($r: [_Any!]!) { _entities(representations: $r) { ... on Test { ${selection} } ... on Dataset { ${selection} } } }`, variables: { r: Array.from({ length: n }, () => rep) } });
      expectRefused(await send('graphql-representations', { method: 'POST', path: '/api/graphql', body, contentType: 'application/json' }));
    }),
    { numRuns: 30 },
  );
});

describe('issue #29: one token must not degrade the server for everyone', () => {
  const gqlBody = (query: string, variables: unknown) => JSON.stringify({ query, variables });

  test('item 1: write traces over the batch or results bound are refused, on both prefixes', async () => {
    await fc.assert(
      fc.asyncProperty(oversizedTrace, fc.constantFrom('/openapi', '/gms/openapi'), fc.boolean(), async (body, prefix, all) => {
        expectRefused(await send('29-trace-bounds', { method: 'POST', path: `${prefix}/v1/trace/write/0123456789abcdef0000000000000001${all ? '?onlyIncludeErrors=false' : ''}`, body: JSON.stringify(body), contentType: 'application/json' }));
      }),
      { numRuns: 20 },
    );
  });

  test('item 6: trace ids past a signed 64-bit change id are refused', async () => {
    await fc.assert(
      fc.asyncProperty(traceIdPastChangeIds, async (id) => {
        expectRefused(await send('29-trace-ids', { method: 'POST', path: `/openapi/v1/trace/write/${id}`, body: JSON.stringify({ [D]: ['status'] }), contentType: 'application/json' }));
      }),
      { numRuns: 40 },
    );
  });

  test('item 2: _entities naming no entity type, of any shape and number, is refused as the client\'s error', async () => {
    await fc.assert(
      fc.asyncProperty(nonEntityRepresentations, async (r) => {
        const body = gqlBody('query q($r: [_Any!]!) { _entities(representations: $r) { __typename } }', { r });
        expectRefused(await send('29-entities-typename', { method: 'POST', path: '/api/graphql', body, contentType: 'application/json' }));
      }),
      { numRuns: 40 },
    );
  });

  test('item 3: operations asking for more results than the budget, as literals or variables, are refused', async () => {
    await fc.assert(
      fc.asyncProperty(overBudgetOperation, async ({ query, variables }) => {
        expectRefused(await send('29-results-budget', { method: 'POST', path: '/api/graphql', body: gqlBody(query, variables), contentType: 'application/json' }));
      }),
      { numRuns: 40 },
    );
  });

  test('item 4: any spelling of one token is one principal: one rate-limit bucket, counted down by one per request', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(bearerSpelling(reader), { minLength: 2, maxLength: 6 }), async (spellings) => {
        const remaining: number[] = [];
        for (const authorization of nonEmpty(spellings)) {
          counts['29-bearer-spellings'] = (counts['29-bearer-spellings'] ?? 0) + 1;
          const res = await fetch(`${server.url}${V3}/jobs`, { headers: { authorization } });
          await res.text();
          expect(res.status).toBe(200);
          remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
        }
        expect(remaining.slice(1).map((r, i) => remaining[i]! - r)).toEqual(remaining.slice(1).map(() => 1));
      }),
      { numRuns: 30 },
    );
  });

  test('item 4: a malformed or unknown token, spelled any way, is a 401, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 }).chain((t) => bearerSpelling(`x${t.replace(/\s/g, '')}`))), async (authorization) => {
        counts['29-bad-tokens'] = (counts['29-bad-tokens'] ?? 0) + 1;
        const res = await fetch(`${server.url}${V3}/jobs`, { headers: /^[\t\x20-\x7e]*$/.test(authorization) ? { authorization } : {} });
        await res.text();
        expect(res.status).toBe(401);
      }),
      { numRuns: 60 },
    );
  });

  test('item 7: GraphQL documents nested past the limit are refused before they are parsed, in bounded time', async () => {
    await fc.assert(
      fc.asyncProperty(deepDocument, async (query) => {
        const started = Date.now();
        expectRefused(await send('29-deep-documents', { method: 'POST', path: '/api/graphql', body: JSON.stringify({ query }), contentType: 'application/json' }));
        expect(Date.now() - started).toBeLessThan(2000);
      }),
      { numRuns: 40 },
    );
  });

  test('item 10: a Rest.li aspect with a reserved prototype key anywhere is refused, alone and in a batch', async () => {
    const aspects: Array<{ name: string; value: Json }> = [
      { name: 'datasetProperties', value: { description: 'orders', customProperties: { team: 'core' }, tags: ['a'] } },
      { name: 'structuredProperties', value: { properties: [{ propertyUrn: S, values: [{ string: 'team' }] }] } },
      { name: 'globalTags', value: { tags: [{ tag: 'urn:li:tag:a' }] } },
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...aspects), fc.nat(), fc.boolean(), fc.boolean(), async (aspect, which, constructorForm, batch) => {
        const proposal = { entityType: 'dataset', entityUrn: D, changeType: 'UPSERT', aspectName: aspect.name, aspect: { value: withReservedKey(aspect.value, which, constructorForm), contentType: 'application/json' } };
        const body = batch ? { proposals: [{ ...proposal, aspectName: 'status', aspect: { value: '{"removed": false}', contentType: 'application/json' } }, proposal] } : { proposal };
        expectRefused(await send('29-reserved-keys', { method: 'POST', path: `/aspects?action=${batch ? 'ingestProposalBatch' : 'ingestProposal'}`, body: JSON.stringify(body), contentType: 'application/json' }));
      }),
      { numRuns: 40 },
    );
  });
});

interface SlowBody {
  readonly authorized: boolean;
  readonly path: string;
  readonly declared: number;
  readonly sent: number;
}

/** Sends a request head declaring `declared` bytes, `sent` of them, then nothing; resolves with what came back once the server closed. */
function stall(spec: SlowBody): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let received = '';
    const limit = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept a stalled request open: ${JSON.stringify(spec)}, got ${JSON.stringify(received.slice(0, 100))}`));
    }, 30_000);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(limit);
      resolve(received);
    });
    socket.on('connect', () => {
      const auth = spec.authorized ? `Authorization: Bearer ${ROOT}\r\n` : '';
      socket.write(`POST ${spec.path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${spec.declared}\r\n${auth}\r\n${'['.repeat(spec.sent)}`);
    });
  });
}

describe('issue #46: per-request cost bounded by size, jobs without payloads, bulk edits over any urns', () => {
  /** Answers that must come back 200 with every bound held; a 5xx is recorded like any other. */
  async function answered(category: string, req: RawRequest, token = ROOT): Promise<any> {
    counts[category] = (counts[category] ?? 0) + 1;
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (req.contentType !== undefined) headers['content-type'] = req.contentType;
    const res = await fetch(server.url + req.path, { method: req.method, headers, ...(req.body !== undefined ? { body: req.body } : {}) });
    const text = await res.text();
    if (res.status >= 500) serverErrors.push(`${category}: ${req.method} ${req.path} -> ${res.status} ${text.slice(0, 200)}`);
    expect(res.status).toBe(200);
    return JSON.parse(text);
  }

  const historyTarget = fc.constantFrom(`urn: "${WIDE}"`, `propertyUrn: "${NOTES}"`, `urn: "${WIDE}", propertyUrn: "io.fuzz.notes"`, `urn: "${D}"`, `propertyUrn: "${P}"`);
  const historyOperation = fc.array(fc.record({ target: historyTarget, count: fc.integer({ min: 0, max: 1000 }) }), { minLength: 1, maxLength: 10 });

  test('item 2: any valueHistory operation within the results budget answers pages bounded by size as well as by count', async () => {
    await fc.assert(
      fc.asyncProperty(historyOperation, async (aliases) => {
        const fields = aliases.map((a, i) => `h${i}: valueHistory(input: {${a.target}, count: ${a.count}}) { nextScrollId entries { urn version changes { before { ... on StringValue { stringValue } ... on NumberValue { numberValue } } after { ... on StringValue { stringValue } ... on NumberValue { numberValue } } } } }`);
        const body = await answered('46-history-size', { method: 'POST', path: '/api/graphql', body: JSON.stringify({ query: `{ ${fields.join(' ')} }` }), contentType: 'application/json' }, reader);
        expect(body.errors).toBeUndefined();
        nonEmpty(aliases).forEach((a, i) => {
          const page = body.data[`h${i}`];
          expect(page.entries.length).toBeLessThanOrEqual(a.count);
          // One entry alone may be as large as its versions; more than one stay within the bound.
          if (page.entries.length > 1) expect(JSON.stringify(page.entries).length).toBeLessThanOrEqual(LIMITS.historyPageCharacters * 1.2);
        });
      }),
      { numRuns: 30 },
    );
  });

  test('item 3: any jobs listing carries no job\'s inputs or result, and bulk edits keeping more than the bounds are refused', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), fc.constantFrom('', 'pending', 'running', 'done', 'failed'), async (count, status) => {
        const body = await answered('46-jobs-listing', { method: 'GET', path: `${V3}/jobs?count=${count}${status ? `&status=${status}` : ''}` }, reader);
        // A listing may be empty (count=0, or no job of the status): none carries inputs or a result.
        expect(body.jobs.filter((job: Record<string, unknown>) => 'payload' in job || 'result' in job)).toEqual([]);
      }),
      { numRuns: 20 },
    );
    const oversized = fc.oneof(
      // Values whose JSON is past what one entity's aspect holds.
      fc.integer({ min: 60, max: 1000 }).map((n) => ({ urns: [D], property: 'io.fuzz.notes', operation: 'set', values: Array.from({ length: n }, (_, i) => `${i}-${'v'.repeat(9_990)}`) })),
      // Entities named past what a job keeps.
      fc.integer({ min: 1000, max: 10_000 }).map((n) => ({ urns: Array.from({ length: n }, (_, i) => `urn:li:dataset:(urn:li:dataPlatform:hive,${'u'.repeat(Math.ceil((2.2 * 1024 * 1024) / n))}${i},PROD)`), property: 'io.fuzz.owner', operation: 'set', values: ['x'] })),
    );
    await fc.assert(
      fc.asyncProperty(oversized, async (edit) => {
        expectRefused(await send('46-bulk-size', { method: 'POST', path: `${V3}/values/bulk`, body: JSON.stringify(edit), contentType: 'application/json' }));
      }),
      { numRuns: 8 },
    );
  });

  const anyUrn = fc.oneof(
    fc.string({ minLength: 1, maxLength: 12 }).map((s) => `urn:li:dataset:(urn:li:dataPlatform:hive,fuzz.none.${encodeURIComponent(s)},PROD)`),
    fc.string({ minLength: 1, maxLength: 12 }).map((s) => `urn:li:test:${encodeURIComponent(s)}`),
    fc.string({ minLength: 1, maxLength: 12 }).map((s) => `urn:li:corpuser:${encodeURIComponent(s)}`),
    fc.string({ minLength: 1, maxLength: 12 }).map((s) => `urn:li:glossaryTerm:${encodeURIComponent(s)}`),
    fc.constantFrom(D, WIDE, P),
  ).filter((u) => tryParseUrn(u).ok);

  test('item 9: a bulk edit dry run over any urns (missing datasets, tests, people, other types) answers each entity changed, unchanged or refused with a reason, never an error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(anyUrn, { minLength: 1, maxLength: 12 }), fc.constantFrom('set', 'add', 'remove'), async (urns, operation) => {
        const body = await answered('46-bulk-any-urns', { method: 'POST', path: `${V3}/values/bulk`, body: JSON.stringify({ urns, property: 'io.fuzz.owner', operation, values: operation === 'remove' ? [] : ['fuzz'], dryRun: true }), contentType: 'application/json' });
        const named = new Set(urns.map((u) => tryParseUrn(u).ok && (tryParseUrn(u) as { urn: { value: string } }).urn.value));
        expect(body.changed + body.unchanged + body.refused.length).toBe(named.size);
        expect(body.refused.filter((r: { reason: string }) => !/\w/.test(r.reason))).toEqual([]);
        // Only the datasets that exist can change.
        expect(body.changed + body.unchanged).toBeLessThanOrEqual([D, WIDE].filter((u) => named.has(u)).length);
      }),
      { numRuns: 40 },
    );
  });
});

test('slow bodies of any size, with or without a token, on any route, end in a 4xx and a closed connection', async () => {
  const slowBody = fc
    .record({
      authorized: fc.boolean(),
      path: fc.constantFrom(`${V3}/entity/dataset`, path(D, '/structuredProperties'), '/api/graphql', '/gms/test?action=evaluate', `/openapi/v2/entity/dataset`),
      declared: fc.integer({ min: 2, max: 20_000_000 }),
      sent: fc.nat({ max: 5000 }),
    })
    .map((r) => ({ ...r, sent: Math.min(r.sent, r.declared - 1) }));
  await fc.assert(
    fc.asyncProperty(fc.array(slowBody, { minLength: 10, maxLength: 20 }), async (specs) => {
      counts['slow-bodies'] = (counts['slow-bodies'] ?? 0) + specs.length;
      const answers = await Promise.all(specs.map(stall));
      nonEmpty(answers).forEach((answer, i) => {
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
        if (!(status >= 400 && status < 500)) serverErrors.push(`slow body ${JSON.stringify(specs[i])} -> ${JSON.stringify(answer.slice(0, 100))}`);
        expect(status).toBeGreaterThanOrEqual(400);
        expect(status).toBeLessThan(500);
      });
    }),
    { numRuns: 4 },
  );
});

test('afterwards: no request got a 5xx, the server still answers, and the database is byte-for-byte unchanged', async () => {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  expect(total).toBeGreaterThanOrEqual(500);
  expect(serverErrors).toEqual([]);
  expect((await fetch(`${server.url}/health`)).status).toBe(200);
  expect(await databaseChecksum(server.database.sql)).toBe(baseline);
});
