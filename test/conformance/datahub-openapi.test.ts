/**
 * Replays DataHub's public OpenAPI smoke tests for structured properties with the
 * rules of DataHub's own runner, on the embedded and an external PostgreSQL. The
 * recorded suites are an external test input, not part of the repository: they are
 * read from CONFORMANCE_DIR, by default ../shared/conformance beside the checkout
 * (its datahub-openapi folder; its README describes the runner's rules), and the suite
 * says so and skips when they are absent (docs/architecture.md, Tests).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffStrict, parseStrictJson, JsonNumber, type StrictJson } from '../support/strictJson.js';
import { postgresAvailableForTests, startTestServer, type Backend, type TestServer } from '../support/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = process.env.CONFORMANCE_DIR ?? path.resolve(here, '../../../shared/conformance');
const suites = ['v2_structured_properties.json', 'v3_structured_properties.json'];
const available = existsSync(path.join(dir, 'datahub-openapi', suites[0]!));
if (!available) console.log(`conformance replay skipped: no fixtures at ${dir} (set CONFORMANCE_DIR)`);

/** The fixtures use DataHub's vendor namespace; propgraph's canonical one is `svc`. */
function rewriteNamespace(text: string): string {
  return text.replaceAll('urn:li:dataType:datahub.', 'urn:li:dataType:svc.').replaceAll('urn:li:entityType:datahub.', 'urn:li:entityType:svc.');
}

function toPlain(v: StrictJson): unknown {
  if (v instanceof JsonNumber) return v.value;
  if (Array.isArray(v)) return v.map(toPlain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)]));
  return v;
}

/** Serialises a fixture body keeping `30.0` as written (JSON.stringify would print 30). */
function stringifyStrict(v: StrictJson): string {
  if (v instanceof JsonNumber) return v.text;
  if (Array.isArray(v)) return `[${v.map(stringifyStrict).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${stringifyStrict(x)}`).join(',')}}`;
  return JSON.stringify(v);
}

interface Step {
  request: { url: string; description?: string; method?: string; params?: Record<string, StrictJson>; json?: StrictJson; wait?: JsonNumber; headers?: Record<string, string> };
  response?: { status_codes?: JsonNumber[]; json?: StrictJson; exclude_regex_paths?: string[] };
}

async function replay(server: TestServer, file: string): Promise<{ passed: number; failures: string[] }> {
  const steps = parseStrictJson(rewriteNamespace(readFileSync(path.join(dir, 'datahub-openapi', file), 'utf8'))) as unknown as Step[];
  const failures: string[] = [];
  let passed = 0;
  for (const [n, step] of steps.entries()) {
    const req = step.request;
    const label = `${file} step ${n} (${req.description ?? req.url})`;
    if (req.wait) {
      await new Promise((r) => setTimeout(r, req.wait!.value * 1000));
      passed++;
      continue;
    }
    const url = new URL(server.url + req.url);
    for (const [k, v] of Object.entries(req.params ?? {})) url.searchParams.set(k, String(toPlain(v)));
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    let body: string | undefined;
    if (req.json !== undefined) {
      body = stringifyStrict(req.json);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(url, { method: (req.method ?? 'post').toUpperCase(), headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    const allowed = step.response?.status_codes?.map((c) => c.value) ?? [200, 201, 202, 204];
    const problems: string[] = [];
    if (!allowed.includes(res.status)) problems.push(`status ${res.status} not in ${allowed.join(',')}: ${text}`);
    if (step.response?.json !== undefined) {
      const exclude = (step.response.exclude_regex_paths ?? []).map((r) => new RegExp(r));
      try {
        problems.push(...diffStrict(step.response.json, parseStrictJson(text), exclude));
      } catch (err) {
        problems.push(`response is not JSON (${(err as Error).message}): ${text}`);
      }
    }
    if (problems.length === 0) passed++;
    else failures.push(`${label}: ${problems.join('; ')}`);
  }
  return { passed, failures };
}

const backends: Backend[] = postgresAvailableForTests() ? ['embedded', 'external'] : ['embedded'];

(available ? describe : describe.skip).each(backends)('DataHub OpenAPI conformance on %s', (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ backend });
  });
  afterAll(async () => {
    await server.stop();
  });

  test.each(suites)('%s replays with every step passing, twice in a row', async (file) => {
    // The second run starts from the state the first left: the fixtures' own cleanup steps must make it idempotent.
    for (let round = 0; round < 2; round++) {
      const { passed, failures } = await replay(server, file);
      expect(failures).toEqual([]);
      expect(passed).toBeGreaterThan(0);
    }
  });
});
