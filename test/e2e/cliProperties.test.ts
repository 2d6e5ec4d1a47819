/**
 * `propgraph properties ...` end to end: the built CLI as a subprocess against a
 * real server, effects read back over REST.
 */
import { rmSync } from 'node:fs';
import { enc, http } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ensureCliBuilt, runCli, runCliOnTerminal, tempDir, writeFile, type CliResult } from './cliRunner.js';
import { SEED_PROPERTIES_YAML, SEED_PROPERTY_URNS } from './seedExamples.js';

let server: TestServer;
let home: string;
/** DataHub's form of the address: `https://<host>/gms` (docs/contract.md §9). */
let gms: string;

beforeAll(async () => {
  await ensureCliBuilt();
  server = await startTestServer();
  gms = `${server.url}/gms`;
  home = tempDir();
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

const cli = (args: string[], input?: string): Promise<CliResult> => runCli(args, { home, server: gms, ...(input !== undefined ? { input } : {}) });
const yamlFile = (name: string, text: string) => writeFile(home, name, text);

async function definitionOf(urn: string): Promise<Record<string, any> | undefined> {
  const res = await http(server.url, 'GET', `/openapi/v3/entity/structuredProperty/${enc(urn)}/propertyDefinition`);
  return res.status === 200 ? res.body.propertyDefinition.value : undefined;
}

describe('properties upsert with the example definition file', () => {
  let result: CliResult;
  beforeAll(async () => {
    result = await cli(['properties', 'upsert', '-f', yamlFile('seed-props.yaml', SEED_PROPERTIES_YAML)]);
  });

  it('prints "Created structured property <urn>" per entry and a summary, exit 0', () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([...SEED_PROPERTY_URNS.map((u) => `Created structured property ${u}`), '3 written, 0 failed']);
  });

  it('stores canonical type URNs, entity type URNs and typed allowed values', async () => {
    expect(await definitionOf(SEED_PROPERTY_URNS[0]!)).toEqual({
      qualifiedName: 'io.acryl.privacy.retentionTime',
      displayName: 'Retention Time',
      description: 'Retention Time is used to figure out how long to retain records in a dataset',
      valueType: 'urn:li:dataType:svc.number',
      cardinality: 'MULTIPLE',
      entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.dataFlow'],
      allowedValues: [
        { value: { double: 30 }, description: '30 days, usually reserved for datasets that are ephemeral and contain pii' },
        { value: { double: 90 }, description: 'Use this for datasets that drive monthly reporting but contain pii' },
        { value: { double: 365 }, description: 'Use this for non-sensitive data that can be retained for longer' },
      ],
    });
    const date = await definitionOf(SEED_PROPERTY_URNS[2]!);
    expect(date?.valueType).toBe('urn:li:dataType:svc.date');
    expect(date?.entityTypes).toEqual(['dataset', 'dataFlow', 'dataJob', 'schemaField'].map((t) => `urn:li:entityType:svc.${t}`));
  });

  it('properties get prints the snake_case JSON with full URNs and string allowed values', async () => {
    const got = await cli(['properties', 'get', '--urn', SEED_PROPERTY_URNS[0]!]);
    expect(got.code).toBe(0);
    const printed = JSON.parse(got.stdout);
    expect(Object.keys(printed)).toEqual(['urn', 'qualified_name', 'type', 'description', 'display_name', 'entity_types', 'cardinality', 'allowed_values']);
    expect(printed).toEqual({
      urn: SEED_PROPERTY_URNS[0],
      qualified_name: 'io.acryl.privacy.retentionTime',
      type: 'urn:li:dataType:svc.number',
      description: 'Retention Time is used to figure out how long to retain records in a dataset',
      display_name: 'Retention Time',
      entity_types: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.dataFlow'],
      cardinality: 'MULTIPLE',
      allowed_values: [
        { value: '30.0', description: '30 days, usually reserved for datasets that are ephemeral and contain pii' },
        { value: '90.0', description: 'Use this for datasets that drive monthly reporting but contain pii' },
        { value: '365.0', description: 'Use this for non-sensitive data that can be retained for longer' },
      ],
    });
  });

  it('properties get also takes a qualified name, and says when the property does not exist', async () => {
    const byName = await cli(['properties', 'get', '--urn', 'io.acryl.dataManagement.replicationSLA']);
    expect(JSON.parse(byName.stdout)).toMatchObject({ urn: SEED_PROPERTY_URNS[1], cardinality: 'SINGLE', type: 'urn:li:dataType:svc.number' });
    const missing = await cli(['properties', 'get', '--urn', 'no.such.property']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Structured property urn:li:structuredProperty:no.such.property does not exist');
  });

  it('upserting the same file again says "Updated" per entry', async () => {
    const again = await cli(['properties', 'upsert', '-f', yamlFile('seed-props.yaml', SEED_PROPERTIES_YAML)]);
    expect(again.code).toBe(0);
    expect(again.stdout.trim().split('\n')).toEqual([...SEED_PROPERTY_URNS.map((u) => `Updated structured property ${u}`), '3 written, 0 failed']);
  });

  it('properties list prints every property urn; --details prints their definitions', async () => {
    const list = await cli(['properties', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout.trim().split('\n')).toEqual(expect.arrayContaining(SEED_PROPERTY_URNS));
    const details = JSON.parse((await cli(['properties', 'list', '--details'])).stdout) as Array<{ urn: string; qualified_name: string }>;
    expect(details.find((d) => d.urn === SEED_PROPERTY_URNS[1])?.qualified_name).toBe('io.acryl.dataManagement.replicationSLA');
  });
});

describe('properties upsert: create or update', () => {
  it('accepts short type names in any case, full type and entity type URNs, and urn with qualified_name', async () => {
    const file = yamlFile(
      'forms.yaml',
      `- id: forms.upper
  type: NUMBER
  entity_types: [DATASET, urn:li:entityType:datahub.dataFlow]
- urn: urn:li:structuredProperty:forms.byUrn
  qualified_name: forms.byUrn
  type: Rich_Text
  entity_types: [urn:li:entityType:svc.dataJob]
- id: forms.fullType
  type: urn:li:dataType:datahub.string
  entity_types: [schemaField]
  allowed_values:
    - value: 1.50
    - value: yes
`,
    );
    const result = await cli(['properties', 'upsert', '-f', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect((await definitionOf('urn:li:structuredProperty:forms.upper'))).toMatchObject({
      valueType: 'urn:li:dataType:svc.number',
      entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.dataFlow'],
    });
    expect((await definitionOf('urn:li:structuredProperty:forms.byUrn'))?.valueType).toBe('urn:li:dataType:svc.rich_text');
    // A string property keeps values exactly as written, not as YAML would parse them.
    expect((await definitionOf('urn:li:structuredProperty:forms.fullType'))?.allowedValues).toEqual([{ value: { string: '1.50' } }, { value: { string: 'yes' } }]);
  });

  it('updates an existing definition in place (widening is always allowed)', async () => {
    const first = yamlFile('update-1.yaml', `- id: upd.prop\n  type: string\n  entity_types: [dataset]\n  display_name: Before\n`);
    expect((await cli(['properties', 'upsert', '-f', first])).code).toBe(0);
    const second = yamlFile('update-2.yaml', `- id: upd.prop\n  type: string\n  cardinality: multiple\n  entity_types: [dataset, dataFlow]\n  display_name: After\n`);
    const result = await cli(['properties', 'upsert', '-f', second]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Updated structured property urn:li:structuredProperty:upd.prop\n');
    expect(await definitionOf('urn:li:structuredProperty:upd.prop')).toMatchObject({ displayName: 'After', cardinality: 'MULTIPLE' });
  });

  it('rejects a breaking change without a new version, where stored values break, before writing anything, and applies it with one', async () => {
    const base = yamlFile('ver-1.yaml', `- id: ver.prop\n  type: number\n  cardinality: MULTIPLE\n  entity_types: [dataset]\n`);
    expect((await cli(['properties', 'upsert', '-f', base])).code).toBe(0);
    const held = yamlFile('ver-held.yaml', `- id: ver.held\n  platform: hive\n  structured_properties:\n    ver.prop: [1, 2]\n`);
    expect((await cli(['dataset', 'upsert', '-f', held])).code).toBe(0);
    const breaking = `- id: ver.other\n  type: string\n  entity_types: [dataset]\n- id: ver.prop\n  type: number\n  cardinality: SINGLE\n  entity_types: [dataset]\n`;
    const rejected = await cli(['properties', 'upsert', '-f', yamlFile('ver-2.yaml', breaking)]);
    expect(rejected.code).toBe(2);
    expect(rejected.stderr).toContain('ver-2.yaml:4: entry 2 (id: ver.prop): Incompatible structured property definition change: cardinality changes from MULTIPLE to SINGLE (1 entity holds values it breaks)');
    expect(rejected.stderr).toContain('nothing was written');
    expect(await definitionOf('urn:li:structuredProperty:ver.other')).toBeUndefined();

    const versioned = await cli(['properties', 'upsert', '-f', yamlFile('ver-3.yaml', `${breaking}  version: 20240614080000\n`)]);
    expect(versioned.code).toBe(0);
    expect(await definitionOf('urn:li:structuredProperty:ver.prop')).toMatchObject({ cardinality: 'SINGLE', version: '20240614080000' });
    const got = JSON.parse((await cli(['properties', 'get', '--urn', 'ver.prop'])).stdout);
    expect(Object.keys(got)).toEqual(['urn', 'qualified_name', 'type', 'version', 'entity_types', 'cardinality']);
  });

  it('--dry-run validates without writing', async () => {
    const file = yamlFile('dry.yaml', `- id: dry.one\n  type: string\n  entity_types: [dataset]\n- id: dry.two\n  type: number\n  entity_types: [dataset]\n`);
    const result = await cli(['properties', 'upsert', '-f', file, '--dry-run']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${file}: 2 structured properties are valid; nothing was written (dry run).\n`);
    expect(await definitionOf('urn:li:structuredProperty:dry.one')).toBeUndefined();
  });

  it('--atomic writes the whole file in one transaction', async () => {
    const file = yamlFile('atomic.yaml', `- id: atomic.one\n  type: string\n  entity_types: [dataset]\n- id: atomic.two\n  type: number\n  entity_types: [dataset]\n`);
    const result = await cli(['properties', 'upsert', '-f', file, '--atomic']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('2 written, 0 failed');
    expect(await definitionOf('urn:li:structuredProperty:atomic.two')).toMatchObject({ valueType: 'urn:li:dataType:svc.number' });
  });

  it('keeps entries written before a server-side failure, reports the failure and exits 1', async () => {
    // The server rejects a name that shares its search field with a live property ('.' vs '_').
    const res = await http(server.url, 'POST', `/openapi/v3/entity/structuredProperty/${enc('urn:li:structuredProperty:clash_name')}/propertyDefinition`, {
      json: { value: { qualifiedName: 'clash_name', valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'] } },
    });
    expect(res.status).toBe(200);
    const file = yamlFile('partial.yaml', `- id: partial.ok\n  type: string\n  entity_types: [dataset]\n- id: clash.name\n  type: string\n  entity_types: [dataset]\n`);
    const result = await cli(['properties', 'upsert', '-f', file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Created structured property urn:li:structuredProperty:partial.ok');
    expect(result.stdout).toContain('1 written, 1 failed');
    expect(result.stderr).toMatch(/partial\.yaml:4: entry 2 \(id: clash\.name\): not written: Validation Error: /);
    expect(await definitionOf('urn:li:structuredProperty:partial.ok')).toBeDefined();
  });
});

describe('properties upsert: YAML errors name the file, entry, field and reason, exit 2, write nothing', () => {
  async function rejected(name: string, text: string): Promise<string> {
    const file = yamlFile(name, text);
    const result = await cli(['properties', 'upsert', '-f', file]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    return result.stderr;
  }

  it('an unknown key, with the key it probably meant', async () => {
    const stderr = await rejected('typo.yaml', `- id: ok.first\n  type: string\n  entity_types: [dataset]\n- id: foo\n  qualifed_name: foo\n  type: string\n  entity_types: [dataset]\n`);
    expect(stderr).toContain("typo.yaml:5: entry 2 (id: foo): qualifed_name: is not a known field; did you mean 'qualified_name'?");
    expect(stderr).toMatch(/\n1 error in \S*typo\.yaml; nothing was written\.\n$/);
    // Validation covers the whole file before any write: the valid first entry is not written either.
    expect(await definitionOf('urn:li:structuredProperty:ok.first')).toBeUndefined();
  });

  it('a key that resembles nothing lists the known keys', async () => {
    const stderr = await rejected('unknown.yaml', `- id: x.y\n  type: string\n  entity_types: [dataset]\n  colour: blue\n`);
    expect(stderr).toContain('unknown.yaml:4: entry 1 (id: x.y): colour: is not a known field; expected one of id, urn, qualified_name, type,');
  });

  it('missing required fields', async () => {
    const stderr = await rejected('missing.yaml', `- id: m.one\n  entity_types: [dataset]\n- id: m.two\n  type: string\n- display_name: nameless\n  type: string\n  entity_types: [dataset]\n`);
    expect(stderr).toContain('missing.yaml:1: entry 1 (id: m.one): type: is required');
    expect(stderr).toContain('missing.yaml:3: entry 2 (id: m.two): entity_types: is required');
    expect(stderr).toContain('missing.yaml:5: entry 3: id: is required (or give urn together with qualified_name)');
    expect(stderr).toMatch(/\n3 errors in \S*missing\.yaml; nothing was written\.\n$/);
  });

  it('an unknown data type or entity type, with a suggestion', async () => {
    const stderr = await rejected('types.yaml', `- id: t.one\n  type: numbr\n  entity_types: [datset]\n`);
    expect(stderr).toContain('types.yaml:2: entry 1 (id: t.one): type: "numbr" is not a data type; use one of string, rich_text, number, date, urn (did you mean number?)');
    expect(stderr).toContain('types.yaml:3: entry 1 (id: t.one): entity_types[0]: "datset" is not an entity type; did you mean dataset?');
  });

  it('a bad cardinality or version', async () => {
    const stderr = await rejected('card.yaml', `- id: c.one\n  type: string\n  cardinality: MANY\n  version: 2024-06-14\n  entity_types: [dataset]\n`);
    expect(stderr).toContain('card.yaml:3: entry 1 (id: c.one): cardinality: must be one of SINGLE, MULTIPLE, not "MANY"');
    expect(stderr).toContain('card.yaml:4: entry 1 (id: c.one): version: "2024-06-14" does not match [0-9]{14} (yyyyMMddhhmmss, e.g. 20240614080000)');
  });

  it('allowed values that do not fit the type, or repeat', async () => {
    const stderr = await rejected(
      'allowed.yaml',
      `- id: a.num\n  type: number\n  entity_types: [dataset]\n  allowed_values:\n    - value: thirty\n    - value: 30\n    - value: 30.0\n- id: a.date\n  type: date\n  entity_types: [dataset]\n  allowed_values:\n    - value: 2024-02-30\n    - {description: no value}\n`,
    );
    expect(stderr).toContain('allowed.yaml:5: entry 1 (id: a.num): allowed_values[0].value: "thirty" should be a number');
    expect(stderr).toContain('allowed.yaml:7: entry 1 (id: a.num): allowed_values[2].value: 30 is listed more than once');
    expect(stderr).toContain('allowed.yaml:12: entry 2 (id: a.date): allowed_values[0].value: "2024-02-30" is not a date: 2024-02 has 29 days');
    expect(stderr).toContain('allowed.yaml:13: entry 2 (id: a.date): allowed_values[1].value: is required');
  });

  it('wrong shapes: a value where a list belongs, a list where a value belongs', async () => {
    const stderr = await rejected('shapes.yaml', `- id: s.one\n  type: [string]\n  entity_types: dataset\n`);
    expect(stderr).toContain('shapes.yaml:2: entry 1 (id: s.one): type: must be a single value, not a list');
    expect(stderr).toContain('shapes.yaml:3: entry 1 (id: s.one): entity_types: must be a list of entity types');
  });

  it('ids with spaces, ids that disagree with the urn, and repeated entries', async () => {
    const stderr = await rejected(
      'ids.yaml',
      `- id: has space\n  type: string\n  entity_types: [dataset]\n- urn: urn:li:structuredProperty:u.one\n  qualified_name: u.two\n  type: string\n  entity_types: [dataset]\n- id: dup.one\n  type: string\n  entity_types: [dataset]\n- id: dup.one\n  type: string\n  entity_types: [dataset]\n- id: dup_one\n  type: string\n  entity_types: [dataset]\n`,
    );
    expect(stderr).toContain('ids.yaml:1: entry 1 (id: has space): id: "has space" cannot have spaces; use dots or underscores');
    expect(stderr).toContain('ids.yaml:5: entry 2 (id: u.two): qualified_name: "u.two" must equal the urn id "u.one"');
    expect(stderr).toContain('ids.yaml:11: entry 4 (id: dup.one): id: urn:li:structuredProperty:dup.one is already defined by entry 3');
    expect(stderr).toContain("ids.yaml:14: entry 5 (id: dup_one): id: 'dup_one' collides with 'dup.one' of entry 3");
  });

  it('invalid YAML syntax, with line and column', async () => {
    const stderr = await rejected('syntax.yaml', `- id: bad\n  type: string\n   entity_types: [dataset\n`);
    expect(stderr).toMatch(/syntax\.yaml:\d+:\d+: invalid YAML: /);
  });

  it('a file that is not a list of entries, an empty file, a missing file', async () => {
    expect(await rejected('scalar.yaml', 'just text\n')).toContain('scalar.yaml:1: expected a list of structured property definitions, not "just text"');
    expect(await rejected('empty.yaml', '')).toContain('empty.yaml:1: the file is empty; expected a list of structured property definitions');
    expect(await rejected('items.yaml', '- 42\n')).toContain('items.yaml:1: entry 1: must be a mapping of keys to values, not "42"');
    const missing = await cli(['properties', 'upsert', '-f', `${home}/nope.yaml`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`Cannot read ${home}/nope.yaml: no such file`);
  });

  it('input limits (docs/contract.md §12): U+0000, a lone surrogate and deep nesting are refused with their line, as over REST', async () => {
    const stderr = await rejected('limits.yaml', `- id: ok.limits\n  type: string\n  entity_types: [dataset]\n  description: "a\\0b"\n`);
    expect(stderr).toContain('limits.yaml:4: entry 1: description: contains the character U+0000 (at character 2), which cannot be stored; remove it');
    const surrogate = await rejected('surrogate.yaml', `- id: ok.limits\n  type: string\n  entity_types: [dataset]\n  display_name: "x\\ud800"\n`);
    expect(surrogate).toContain('surrogate.yaml:4: entry 1: display_name: contains a lone UTF-16 surrogate U+D800 (at character 2)');
    const deep = await rejected('deep.yaml', `- id: ok.limits\n  type: string\n  entity_types: ${'['.repeat(70)}${']'.repeat(70)}\n`);
    expect(deep).toMatch(/deep\.yaml:3: entry 1: entity_types(\[0\]){62}: is nested deeper than the limit of 64 levels/);
  });

  it('a missing -f option is a usage error', async () => {
    const result = await cli(['properties', 'upsert']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("required option '-f, --file <yaml>' not specified");
  });
});

describe('properties upsert of a 1,000-entry file', () => {
  it('writes every entry, prints a line each and a summary, and shows no progress bar in a pipe', async () => {
    const entries = Array.from({ length: 1000 }, (_, i) => `- id: bulk.p${String(i).padStart(4, '0')}\n  type: ${i % 2 ? 'number' : 'string'}\n  entity_types: [dataset]\n`);
    const result = await cli(['properties', 'upsert', '-f', yamlFile('bulk.yaml', entries.join(''))]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1001);
    expect(lines[999]).toBe('Created structured property urn:li:structuredProperty:bulk.p0999');
    expect(lines[1000]).toBe('1000 written, 0 failed');

    let count = 0;
    let scrollId: string | undefined;
    do {
      const page = await http(server.url, 'GET', '/openapi/v3/entity/structuredProperty', { query: { count: '1000', aspects: 'propertyDefinition', ...(scrollId ? { scrollId } : {}) } });
      count += (page.body.entities as Array<{ urn: string }>).filter((e) => e.urn.startsWith('urn:li:structuredProperty:bulk.')).length;
      scrollId = page.body.scrollId;
    } while (scrollId);
    expect(count).toBe(1000);
  }, 240_000);

  it('shows a progress bar on a terminal', async () => {
    const entries = Array.from({ length: 30 }, (_, i) => `- id: tty.p${i}\n  type: string\n  entity_types: [dataset]\n`);
    const result = await runCliOnTerminal(['properties', 'upsert', '-f', yamlFile('tty.yaml', entries.join(''))], { home, server: gms });
    if (!result) return; // no `script` here: nothing to drive a terminal with
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\[#+-*\] \d+\/30 (written|checked)/);
    expect(result.stdout).toContain('30 written, 0 failed');
  }, 60_000);
});
