/**
 * The metadata test file of `propgraph tests upsert -f`: a YAML list (a single mapping is
 * a one-entry list) of `{id | urn, name, category, description?, definition}`, where the
 * definition is a mapping (docs/metadata-tests.md) or its JSON text. What `tests get`
 * prints is such an entry, so a test can be read, edited and written back.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { tryParseUrn } from '../../domain/urn.js';
import { CliError, EXIT } from '../errors.js';

export interface TestEntry {
  readonly urn: string;
  readonly id: string;
  readonly name: string;
  readonly category: string;
  readonly description?: string;
  /** The definition as the server stores it: JSON text. */
  readonly json: string;
}

const TEST_PREFIX = 'urn:li:test:';
const KEYS = new Set(['id', 'urn', 'name', 'category', 'description', 'definition']);

export function testUrnOf(input: string): string {
  const urn = input.startsWith('urn:') ? input : `${TEST_PREFIX}${input}`;
  const parsed = tryParseUrn(urn);
  if (!parsed.ok || parsed.urn.entityType.name !== 'test') {
    throw new CliError(`'${input}' is not a test urn or id${parsed.ok ? '' : ` (${parsed.reason})`}; expected urn:li:test:<id>`, EXIT.usage);
  }
  return urn;
}

function entryOf(raw: unknown, index: number, problems: string[]): TestEntry | undefined {
  const where = `entry ${index}`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push(`${where}: expected a mapping with id, name, category and definition`);
    return undefined;
  }
  const e = raw as Record<string, unknown>;
  const before = problems.length;
  for (const key of Object.keys(e)) if (!KEYS.has(key)) problems.push(`${where}: ${key}: unknown key; expected one of ${[...KEYS].join(', ')}`);
  const text = (key: string, required: boolean): string | undefined => {
    const v = e[key];
    if (v === undefined || v === null) {
      if (required) problems.push(`${where}: ${key}: required`);
      return undefined;
    }
    if (typeof v !== 'string' || v.trim() === '') {
      problems.push(`${where}: ${key}: expected non-empty text`);
      return undefined;
    }
    return v;
  };
  const id = text('id', false);
  const urnText = text('urn', id === undefined);
  let urn: string | undefined;
  try {
    urn = testUrnOf(urnText ?? id ?? '');
    if (id !== undefined && urnText !== undefined && urn !== testUrnOf(id)) problems.push(`${where}: urn: ${urnText} does not match id ${id}`);
  } catch (err) {
    if (id !== undefined || urnText !== undefined) problems.push(`${where}: ${(err as Error).message}`);
  }
  const name = text('name', true);
  const category = text('category', true);
  const description = text('description', false);
  let json: string | undefined;
  const definition = e.definition;
  if (definition === undefined || definition === null) problems.push(`${where}: definition: required (a mapping with on and rules, see docs/metadata-tests.md)`);
  else if (typeof definition === 'string') json = definition;
  else if (typeof definition === 'object' && !Array.isArray(definition)) json = JSON.stringify(definition);
  else problems.push(`${where}: definition: expected a mapping with on and rules, or its JSON text`);
  if (problems.length > before || !urn || !name || !category || json === undefined) return undefined;
  return { urn, id: urn.slice(TEST_PREFIX.length), name, category, ...(description !== undefined ? { description } : {}), json };
}

export function parseTestFile(file: string): TestEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`, EXIT.usage);
  }
  let value: unknown;
  try {
    value = parse(text);
  } catch (err) {
    throw new CliError(`${file}: not valid YAML: ${(err as Error).message}`, EXIT.usage);
  }
  const list = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
  if (list.length === 0) throw new CliError(`${file}: no tests in the file; expected a list of {id, name, category, definition}`, EXIT.usage);
  const problems: string[] = [];
  const entries = list.map((raw, i) => entryOf(raw, i + 1, problems));
  if (problems.length > 0) {
    throw new CliError(`${problems.map((p) => `${file}: ${p}`).join('\n')}\n${problems.length} error${problems.length === 1 ? '' : 's'} in ${file}; nothing was written.`, EXIT.usage);
  }
  return entries as TestEntry[];
}
