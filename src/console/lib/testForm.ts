/**
 * The test form's state, checked with the server's own rules before anything is sent:
 * the testInfo aspect's shape and the definition grammar (src/domain/testInfo.ts,
 * src/domain/testDefinition.ts, bundled into the console), so a mistake is named, with
 * its path in the definition, as the API would name it.
 */
import { ServiceError } from '../../domain/errors.js';
import { parseTestInfo } from '../../domain/testInfo.js';
import { tryParseUrn } from '../../domain/urn.js';

export interface TestFormState {
  id: string;
  name: string;
  category: string;
  description: string;
  /** The definition's JSON text. */
  definition: string;
}

export interface TestFieldError {
  /** The form control at fault (its id without the `tf-` prefix). */
  readonly control: 'id' | 'name' | 'category' | 'description' | 'definition';
  readonly message: string;
}

export const EXAMPLE_DEFINITION = JSON.stringify(
  { on: { types: ['dataset'] }, rules: [{ property: 'datasetProperties.description', operator: 'exists' }] },
  null,
  2,
);

export const EMPTY_TEST: TestFormState = { id: '', name: '', category: '', description: '', definition: EXAMPLE_DEFINITION };

function controlOf(field: string | undefined): TestFieldError['control'] {
  const name = field?.replace(/^testInfo\.?/, '');
  if (name === 'name' || name === 'category' || name === 'description') return name;
  return 'definition';
}

/** The first mistake in the form, or null when the API would accept it. */
export function checkTestForm(f: TestFormState, creating: boolean): TestFieldError | null {
  if (creating && f.id.trim()) {
    const id = f.id.trim();
    const parsed = tryParseUrn(`urn:li:test:${id}`);
    if (!parsed.ok || /\s/.test(id)) return { control: 'id', message: `"${id}" cannot be a test id${parsed.ok ? ': ids cannot have spaces' : `: ${parsed.reason}`}` };
  }
  if (!f.name.trim()) return { control: 'name', message: 'A test needs a name.' };
  if (!f.category.trim()) return { control: 'category', message: 'A test needs a category, such as Governance.' };
  try {
    parseTestInfo(infoOf(f));
    return null;
  } catch (err) {
    if (err instanceof ServiceError) return { control: controlOf(err.field), message: err.message };
    throw err;
  }
}

/** The testInfo aspect the form stands for, as the server would receive it. */
export function infoOf(f: TestFormState): Record<string, unknown> {
  return {
    name: f.name.trim(),
    category: f.category.trim(),
    ...(f.description.trim() ? { description: f.description.trim() } : {}),
    definition: { type: 'JSON', json: f.definition },
  };
}

/** The createTest / updateTest input of the form. */
export function testInput(f: TestFormState) {
  return { name: f.name.trim(), category: f.category.trim(), description: f.description.trim() || null, definition: { json: f.definition } };
}

/** The test's fields a stale save's refusal names, all of which the form edits. */
export const TEST_FIELDS = [
  { field: 'name', label: 'Name', choosable: true },
  { field: 'category', label: 'Category', choosable: true },
  { field: 'description', label: 'Description', choosable: true },
  { field: 'definition', label: 'Definition', choosable: true },
] as const;

/** A definition's JSON as one line whatever its layout, so layout alone is no change. */
function compact(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json));
  } catch {
    return json;
  }
}

/** A field of a testInfo aspect as people read it. */
export function testFieldText(field: string, value: unknown): string {
  if (value === null || value === undefined || value === '') return 'none';
  if (field === 'definition') return compact(String((value as { json?: unknown }).json ?? ''));
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The stored test as the form edits it (its definition laid out). */
export function testFormOf(t: { name: string; category: string; description?: string | null; definition: { json?: string | null } }): TestFormState {
  let definition = t.definition.json ?? '';
  try {
    definition = JSON.stringify(JSON.parse(definition), null, 2);
  } catch {
    // Edited as stored.
  }
  return { id: '', name: t.name, category: t.category, description: t.description ?? '', definition };
}

/** The form with the fields named taken from another (the test stored now), for a merge field by field. */
export function withTestFieldsOf(mine: TestFormState, theirs: TestFormState, fields: readonly string[]): TestFormState {
  const merged = { ...mine };
  for (const f of TEST_FIELDS) if (fields.includes(f.field)) merged[f.field] = theirs[f.field];
  return merged;
}
