/**
 * The metadata test file of `propgraph tests upsert -f`: a YAML list (a single mapping is
 * a one-entry list) of `{id | urn, name, category, description?, definition}`, where the
 * definition is a mapping (docs/metadata-tests.md) or its JSON text. Its shape is
 * yamlShapes.ts; the definition's rules are the server's, which answers per test. What
 * `tests get` prints is such an entry, so a test can be read, edited and written back.
 */
import type { PathSegment } from '../../domain/inputLimits.js';
import { shapeOf, type Problem } from '../../domain/shapes/shape.js';
import { tryParseUrn } from '../../domain/urn.js';
import { CliError, EXIT } from '../errors.js';
import { fileEntries, FileProblems, type EntryRef } from './fileProblems.js';
import type { YamlFile } from './yamlFile.js';
import { testEntryShape, type TestEntryShape } from './yamlShapes.js';

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

/** The test urn an argument names: a urn, or the id after `urn:li:test:`. */
export function testUrnOf(input: string): string {
  const reason = testUrnProblem(input);
  if (reason) throw new CliError(`'${input}' ${reason}`, EXIT.usage);
  return input.startsWith('urn:') ? input : `${TEST_PREFIX}${input}`;
}

function testUrnProblem(input: string): string | undefined {
  const parsed = tryParseUrn(input.startsWith('urn:') ? input : `${TEST_PREFIX}${input}`);
  if (parsed.ok && parsed.urn.entityType.name === 'test') return undefined;
  return `is not a test urn or id${parsed.ok ? '' : ` (${parsed.reason})`}; expected urn:li:test:<id>`;
}

/** The entry's urn from `id` and/or `urn`, or the problem with them. */
function identify(entry: TestEntryShape): { urn: string } | Problem {
  const { id, urn } = entry;
  if (id == null && urn == null) return { path: ['urn'], reason: 'is required (or give id)' };
  for (const [key, value] of [['urn', urn], ['id', id]] as const) {
    const reason = value == null ? undefined : testUrnProblem(value);
    if (reason) return { path: [key], reason };
  }
  if (id != null && urn != null && testUrnOf(urn) !== testUrnOf(id)) return { path: ['urn'], reason: `${urn} does not match id ${id}` };
  return { urn: testUrnOf(urn ?? id!) };
}

/** Validates the whole file; throws (exit 2) listing every problem at its line, else returns the tests. */
export function parseTestFile(file: YamlFile): TestEntry[] {
  const problems = new FileProblems(file.name);
  const out: TestEntry[] = [];
  for (const { index, path, value } of fileEntries(file, problems, 'metadata tests')) {
    const named = typeof value.id === 'string' ? value.id : typeof value.urn === 'string' ? value.urn : undefined;
    const entry: EntryRef = { index, ...(named !== undefined ? { id: named } : {}) };
    const shaped = shapeOf(testEntryShape, value);
    const found: Problem[] = shaped.ok ? [] : [...shaped.problems];
    const text = (v: unknown) => v === undefined || v === null || typeof v === 'string';
    // The names are checked whenever they are text, so their problems come with the others.
    const names = text(value.id) && text(value.urn) ? identify(value as TestEntryShape) : undefined;
    if (names && 'reason' in names && !found.some((p) => p.path[0] === names.path[0])) found.push(names);
    problems.addAll(file, path, entry, found);
    if (!shaped.ok || !names || 'reason' in names) continue;
    const e = shaped.value;
    const definitionPath: PathSegment[] = [...path, 'definition'];
    const json = typeof e.definition === 'string' ? e.definition : JSON.stringify(file.typedAt(definitionPath));
    out.push({ urn: names.urn, id: names.urn.slice(TEST_PREFIX.length), name: e.name, category: e.category, ...(e.description != null ? { description: e.description } : {}), json });
  }
  problems.throwIfAny();
  return out;
}
