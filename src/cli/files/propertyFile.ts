/**
 * The structured property definition file (docs/contract.md §2): a list of entries with
 * snake_case keys, turned into REST `propertyDefinition` aspects. The file's shape is
 * yamlShapes.ts; each entry then goes through the domain's own definition schema and
 * rules (the server's), with short type names allowed, and every problem is told at
 * its line in the file before anything is written.
 */
import type { PathSegment } from '../../domain/inputLimits.js';
import { resolveDefinition, searchFieldName, type PropertyDefinition } from '../../domain/propertyDefinition.js';
import { propertyDefinitionShape } from '../../domain/shapes/propertyDefinition.js';
import { shapeOf, type Problem } from '../../domain/shapes/shape.js';
import { DEFAULT_URN_NAMESPACE } from '../../domain/typeUrns.js';
import { tryParseUrn } from '../../domain/urn.js';
import { fileEntries, FileProblems, yamlPath, type EntryRef } from './fileProblems.js';
import type { YamlFile } from './yamlFile.js';
import { propertyEntryShape, wellShapedFields, wellShapedItems, type PropertyEntryShape } from './yamlShapes.js';

const URN_PREFIX = 'urn:li:structuredProperty:';

export interface PropertyEntry {
  readonly entry: EntryRef;
  readonly line: number;
  readonly urn: string;
  readonly definition: PropertyDefinition;
}

/** The file's key for each field of the definition body. */
const YAML_NAMES: Readonly<Record<string, string>> = {
  valueType: 'type',
  entityTypes: 'entity_types',
  displayName: 'display_name',
  allowedValues: 'allowed_values',
  typeQualifier: 'type_qualifier',
  allowedTypes: 'allowed_types',
};

/**
 * A path in the definition body as the path of the file's key; a typed value is the
 * entry's `value`, and allowed values are counted as the file lists them.
 */
function filePath(path: readonly PathSegment[], entry: PropertyEntryShape, allowedIndex: readonly number[]): PathSegment[] {
  const out: PathSegment[] = [];
  for (const [i, segment] of path.entries()) {
    if (segment === 'qualifiedName') out.push(entry.qualified_name != null ? 'qualified_name' : 'id');
    else if (typeof segment === 'number' && path[i - 1] === 'allowedValues') out.push(allowedIndex[segment] ?? segment);
    else out.push(typeof segment === 'string' ? (YAML_NAMES[segment] ?? segment) : segment);
    if (segment === 'value') break;
  }
  return out;
}

/**
 * The parts of an entry that have the right shape, so that the definition's rules
 * still run on them when another part is misspelt or misshapen: every problem of the
 * file is found in one go. Allowed values are kept one by one, with their positions.
 */
function salvage(raw: Record<string, unknown>): { entry: PropertyEntryShape; allowedIndex: number[] } {
  const entry = wellShapedFields(propertyEntryShape, raw) as PropertyEntryShape;
  const items = wellShapedItems(propertyEntryShape.shape.allowed_values.unwrap().unwrap().element, raw.allowed_values);
  const allowedIndex = (items ?? []).flatMap((item, i) => (item ? [i] : []));
  if (items) entry.allowed_values = items.filter((item) => item !== undefined);
  return { entry, allowedIndex };
}

/** Where the entry's names come from: `id`, or `urn` with `qualified_name`. */
function identify(entry: PropertyEntryShape): { urnId?: string; problems: Problem[] } {
  const fail = (key: string, reason: string) => ({ problems: [{ path: [key], reason }] });
  const { id, urn, qualified_name: qualified } = entry;
  if (id == null && urn == null) return fail('id', 'is required (or give urn together with qualified_name)');
  let urnId: string | undefined;
  if (urn != null) {
    if (!urn.startsWith(URN_PREFIX)) return fail('urn', `must be a structured property urn (${URN_PREFIX}<qualified name>)`);
    const parsed = tryParseUrn(urn);
    if (!parsed.ok) return fail('urn', `'${urn}' is not a valid urn: ${parsed.reason}`);
    if (qualified == null) return fail('qualified_name', 'is required when urn is given');
    urnId = parsed.urn.id;
  }
  if (id != null) {
    const idValue = id.startsWith(URN_PREFIX) ? id.slice(URN_PREFIX.length) : id;
    if (urnId !== undefined && urnId !== idValue) return fail('id', `'${idValue}' does not match the urn's id '${urnId}'`);
    urnId = idValue;
  }
  return { urnId, problems: [] };
}

/** The REST definition body the entry stands for, type names as written. */
function definitionBody(entry: PropertyEntryShape, qualifiedName: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    qualifiedName,
    valueType: entry.type,
    entityTypes: entry.entity_types,
    displayName: entry.display_name,
    description: entry.description,
    cardinality: entry.cardinality?.toUpperCase(),
    version: entry.version,
    immutable: entry.immutable == null ? undefined : /^true$/i.test(entry.immutable),
    typeQualifier: entry.type_qualifier ? { allowedTypes: entry.type_qualifier.allowed_types ?? [] } : undefined,
    // The definition's type decides what the text is (docs/contract.md §3): `30` is a number for a number property.
    allowedValues: entry.allowed_values?.map((a) => ({ value: { string: a.value }, description: a.description })),
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined && v !== null));
}

/** One entry's definition, or undefined after reporting its problems. */
function readEntry(file: YamlFile, problems: FileProblems, path: PathSegment[], entry: EntryRef, raw: Record<string, unknown>): PropertyDefinition | undefined {
  const shaped = shapeOf(propertyEntryShape, raw);
  const fileProblems: Problem[] = shaped.ok ? [] : shaped.problems;
  const { entry: fields, allowedIndex } = shaped.ok ? { entry: shaped.value, allowedIndex: (shaped.value.allowed_values ?? []).map((_, i) => i) } : salvage(raw);
  const names = identify(fields);
  const found = names.urnId === undefined ? names : definitionProblems(fields, names.urnId);
  // A field the file's shape already faulted is not reported again by the definition's rules.
  const told = fileProblems.map((p) => yamlPath(p.path));
  const more = found.problems
    .map((p) => ({ path: filePath(p.path, fields, allowedIndex), reason: p.reason }))
    .filter((p) => !told.some((t) => yamlPath(p.path) === t || yamlPath(p.path).startsWith(`${t}.`) || yamlPath(p.path).startsWith(`${t}[`)));
  problems.addAll(file, path, entry, [...fileProblems, ...more]);
  return fileProblems.length === 0 && 'definition' in found ? found.definition : undefined;
}

/**
 * The definition rules of the domain on the entry's definition body. Its type URNs are
 * written in the default namespace: the CLI does not know the server's, and the server
 * writes what it stores in its own.
 */
function definitionProblems(entry: PropertyEntryShape, urnId: string): { definition?: PropertyDefinition; problems: Problem[] } {
  const definitionShape = shapeOf(propertyDefinitionShape, definitionBody(entry, entry.qualified_name ?? urnId));
  return definitionShape.ok ? resolveDefinition(definitionShape.value, { urnId, bareNames: true, namespace: DEFAULT_URN_NAMESPACE }) : { problems: definitionShape.problems };
}

/** The entry's name for messages, before anything else is known about it. */
function entryId(map: Record<string, unknown>): string | undefined {
  for (const key of ['id', 'qualified_name', 'urn']) if (typeof map[key] === 'string') return map[key] as string;
  return undefined;
}

/** Validates the whole file; throws (exit 2) listing every problem, else returns the definitions. */
export function parsePropertyFile(file: YamlFile): PropertyEntry[] {
  const problems = new FileProblems(file.name);
  const out: PropertyEntry[] = [];
  const seen = new Map<string, number>();
  const searchFields = new Map<string, { index: number; name: string }>();
  for (const { index, path, value } of fileEntries(file, problems, 'structured property definitions')) {
    const id = entryId(value);
    const entry: EntryRef = { index, ...(id !== undefined ? { id } : {}) };
    const line = file.lineOf(path);
    const definition = readEntry(file, problems, path, entry, value);
    if (!definition) continue;
    const urn = `${URN_PREFIX}${definition.qualifiedName}`;
    const earlier = seen.get(urn);
    if (earlier !== undefined) {
      problems.add(line, entry, 'id', `${urn} is already defined by entry ${earlier}`);
      continue;
    }
    seen.set(urn, index);
    const field = searchFieldName(definition.qualifiedName);
    const twin = searchFields.get(field);
    if (twin) {
      problems.add(line, entry, 'id', `'${definition.qualifiedName}' collides with '${twin.name}' of entry ${twin.index}: names that differ only by '.' and '_' share one search field`);
      continue;
    }
    searchFields.set(field, { index, name: definition.qualifiedName });
    out.push({ entry, line, urn, definition });
  }
  problems.throwIfAny();
  return out;
}
