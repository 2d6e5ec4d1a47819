/**
 * The structured property definition file (seed 2.1): a list of entries with
 * snake_case keys, turned into REST `propertyDefinition` aspects. Every rule that
 * can be checked without the server is checked here, for every entry, before
 * anything is written.
 */
import { ENTITY_TYPES } from '../../domain/entityTypes.js';
import { ServiceError } from '../../domain/errors.js';
import { parsePropertyDefinition, searchFieldName, VERSION_PATTERN, type AllowedValue, type PropertyDefinition } from '../../domain/propertyDefinition.js';
import { coerceTypedValue, describeValue, sameValue, type TypedValue } from '../../domain/typedValue.js';
import { DATA_TYPES, dataTypeUrn, entityTypeUrn, tryParseDataType, tryParseEntityType, type DataType } from '../../domain/typeUrns.js';
import { tryParseUrn } from '../../domain/urn.js';
import { FieldReader, fileEntries } from './fieldReader.js';
import { checkKeys, closestWord, FileProblems, type EntryRef } from './fileProblems.js';
import { entryOf, type YamlFile, type YamlMap, type YamlNode } from './yamlTree.js';

export const PROPERTY_KEYS = [
  'id', 'urn', 'qualified_name', 'type', 'cardinality', 'version', 'display_name', 'entity_types',
  'description', 'allowed_values', 'immutable', 'type_qualifier',
] as const;

const URN_PREFIX = 'urn:li:structuredProperty:';

export interface PropertyEntry {
  readonly entry: EntryRef;
  readonly line: number;
  readonly urn: string;
  readonly definition: PropertyDefinition;
}

/** REST field names in domain messages, as the file's keys. */
const YAML_FIELD: Record<string, string> = {
  qualifiedName: 'qualified_name',
  valueType: 'type',
  entityTypes: 'entity_types',
  displayName: 'display_name',
  allowedValues: 'allowed_values',
  typeQualifier: 'type_qualifier',
};

function yamlFieldOf(restField: string | undefined): string | undefined {
  if (!restField) return undefined;
  return restField.replace(/^[A-Za-z]+/, (head) => YAML_FIELD[head] ?? head).replace('.allowedTypes', '.allowed_types');
}

function dataTypeOf(text: string): DataType | undefined {
  return tryParseDataType(text.startsWith('urn:') ? text : text.toLowerCase(), true);
}

class PropertyEntryReader extends FieldReader {
  entityTypes(node: YamlNode | undefined, field: string, required: boolean): string[] | undefined {
    if (!node || (node.kind === 'scalar' && node.value === null)) {
      if (required) this.fail(node?.line ?? 1, field, 'is required: a list of entity types such as dataset or urn:li:entityType:svc.dataFlow');
      return undefined;
    }
    if (node.kind !== 'seq') return this.fail(node.line, field, 'must be a list of entity types');
    if (required && node.items.length === 0) return this.fail(node.line, field, 'must name at least one entity type');
    const out: string[] = [];
    node.items.forEach((item, i) => {
      const text = this.scalarText(item, `${field}[${i}]`);
      if (!text) return;
      const type = tryParseEntityType(text.text, true);
      if (!type) {
        const guess = text.text.startsWith('urn:') ? undefined : closestWord(text.text, ENTITY_TYPES.map((t) => t.name));
        this.fail(item.line, `${field}[${i}]`, `'${text.text}' is not an entity type${guess ? `; did you mean '${guess}'?` : ''}`);
        return;
      }
      const urn = entityTypeUrn(type);
      if (out.includes(urn)) this.fail(item.line, `${field}[${i}]`, `${type.name} is listed more than once`);
      else out.push(urn);
    });
    return out;
  }

  allowedValues(list: YamlNode, type: DataType | undefined, allowedUrnTypes: readonly string[] | undefined): AllowedValue[] | undefined {
    if (list.kind !== 'seq') return this.fail(list.line, 'allowed_values', 'must be a list of {value, description} entries');
    const out: AllowedValue[] = [];
    list.items.forEach((item, i) => {
      const field = `allowed_values[${i}]`;
      if (item.kind !== 'map') return this.fail(item.line, field, 'must be a mapping with value and description');
      checkKeys(item, ['value', 'description'], this.problems, this.entry, `${field}.`);
      const valueEntry = entryOf(item, 'value');
      if (!valueEntry) return this.fail(item.line, `${field}.value`, 'is required');
      const scalar = this.scalar(valueEntry.value, `${field}.value`);
      const description = this.text(item, 'description', `${field}.description`);
      if (!scalar || !type) return undefined;
      // A YAML number is a number; anything else is its text, which a number property may still parse.
      const raw: TypedValue = type === 'number' && typeof scalar.value === 'number' ? { double: scalar.value } : { string: scalar.text };
      const coerced = coerceTypedValue(raw, type, allowedUrnTypes ? { allowedEntityTypes: allowedUrnTypes } : {});
      if (!coerced.ok) {
        const reason = type === 'number' ? `'${scalar.text}' is not a number, and the property's type is number` : `${describeValue(raw)} ${coerced.reason}`;
        return this.fail(scalar.line, `${field}.value`, reason);
      }
      if (out.some((o) => sameValue(o.value, coerced.value))) {
        return this.fail(scalar.line, `${field}.value`, `${describeValue(coerced.value)} is listed more than once`);
      }
      out.push({ value: coerced.value, ...(description ? { description: description.text } : {}) });
      return undefined;
    });
    return out;
  }
}

/** Where the entry's names come from: `id`, or `urn` with `qualified_name`. */
function identify(reader: PropertyEntryReader, map: YamlMap): { urn: string; qualifiedName: string } | undefined {
  const id = reader.text(map, 'id');
  const urnText = reader.text(map, 'urn');
  const qualified = reader.text(map, 'qualified_name');
  if (!id && !urnText) return reader.fail(map.line, 'id', 'is required (or give urn together with qualified_name)');

  let urnId: string | undefined;
  if (urnText) {
    const parsed = tryParseUrn(urnText.text);
    if (!urnText.text.startsWith(URN_PREFIX)) return reader.fail(urnText.line, 'urn', `must be a structured property urn (${URN_PREFIX}<qualified name>)`);
    if (!parsed.ok) return reader.fail(urnText.line, 'urn', `'${urnText.text}' is not a valid urn: ${parsed.reason}`);
    urnId = parsed.urn.id;
    if (!qualified) return reader.fail(urnText.line, 'qualified_name', 'is required when urn is given');
  }
  if (id) {
    const idValue = id.text.startsWith(URN_PREFIX) ? id.text.slice(URN_PREFIX.length) : id.text;
    if (/\s/.test(idValue)) return reader.fail(id.line, 'id', 'Qualified names cannot have spaces');
    if (idValue === '') return reader.fail(id.line, 'id', 'must not be empty');
    if (urnId !== undefined && urnId !== idValue) return reader.fail(id.line, 'id', `'${idValue}' does not match the urn's id '${urnId}'`);
    urnId = idValue;
  }
  const qualifiedName = qualified?.text ?? urnId!;
  if (/\s/.test(qualifiedName)) return reader.fail(qualified?.line ?? map.line, 'qualified_name', 'Qualified names cannot have spaces');
  if (qualifiedName !== urnId) {
    return reader.fail(qualified?.line ?? map.line, 'qualified_name', `'${qualifiedName}' must equal the id '${urnId}' (the qualified name is the urn's id)`);
  }
  return { urn: `${URN_PREFIX}${urnId}`, qualifiedName };
}

function readEntry(reader: PropertyEntryReader, map: YamlMap): PropertyDefinition | undefined {
  const names = identify(reader, map);

  const typeText = reader.text(map, 'type', 'type', { required: true });
  let type: DataType | undefined;
  if (typeText) {
    type = dataTypeOf(typeText.text);
    if (!type) {
      const guess = typeText.text.startsWith('urn:') ? undefined : closestWord(typeText.text, DATA_TYPES);
      reader.fail(typeText.line, 'type', `'${typeText.text}' is not a data type; use one of ${DATA_TYPES.join(', ')}${guess ? ` (did you mean '${guess}'?)` : ''}`);
    }
  }

  const cardinalityText = reader.text(map, 'cardinality');
  const cardinality = cardinalityText?.text.toUpperCase();
  if (cardinalityText && cardinality !== 'SINGLE' && cardinality !== 'MULTIPLE') {
    reader.fail(cardinalityText.line, 'cardinality', `'${cardinalityText.text}' must be SINGLE or MULTIPLE`);
  }

  const version = reader.text(map, 'version');
  if (version && !VERSION_PATTERN.test(version.text)) {
    reader.fail(version.line, 'version', `'${version.text}' must be a 14-digit timestamp yyyyMMddhhmmss, e.g. 20240614080000`);
  }
  const displayName = reader.text(map, 'display_name');
  const description = reader.text(map, 'description');
  const immutable = reader.boolean(map, 'immutable');
  const entityTypes = reader.entityTypes(entryOf(map, 'entity_types')?.value ?? { kind: 'scalar', value: null, text: '', line: map.line }, 'entity_types', true);

  let typeQualifier: { allowedTypes: string[] } | undefined;
  const qualifierMap = reader.map(map, 'type_qualifier');
  if (qualifierMap) {
    checkKeys(qualifierMap, ['allowed_types'], reader.problems, reader.entry, 'type_qualifier.');
    if (type && type !== 'urn') reader.fail(qualifierMap.line, 'type_qualifier', 'applies only to properties of type urn');
    const allowed = reader.entityTypes(entryOf(qualifierMap, 'allowed_types')?.value, 'type_qualifier.allowed_types', false);
    if (allowed) typeQualifier = { allowedTypes: allowed };
  }

  const allowedNode = entryOf(map, 'allowed_values')?.value;
  const allowedUrnTypes = typeQualifier?.allowedTypes.map((t) => tryParseEntityType(t)!.name);
  const allowedValues =
    allowedNode && !(allowedNode.kind === 'scalar' && allowedNode.value === null) ? reader.allowedValues(allowedNode, type, allowedUrnTypes) : undefined;

  if (!names || !type || !entityTypes) return undefined;
  return {
    qualifiedName: names.qualifiedName,
    valueType: dataTypeUrn(type),
    entityTypes,
    ...(displayName ? { displayName: displayName.text } : {}),
    ...(description ? { description: description.text } : {}),
    ...(cardinality === 'SINGLE' || cardinality === 'MULTIPLE' ? { cardinality } : {}),
    ...(allowedValues && allowedValues.length > 0 ? { allowedValues } : {}),
    ...(typeQualifier ? { typeQualifier } : {}),
    ...(immutable !== undefined ? { immutable } : {}),
    ...(version && VERSION_PATTERN.test(version.text) ? { version: version.text } : {}),
  };
}

/** The entry's name for messages, before anything else is known about it. */
function entryId(map: YamlMap): string | undefined {
  for (const key of ['id', 'qualified_name', 'urn']) {
    const node = entryOf(map, key)?.value;
    if (node?.kind === 'scalar' && node.value !== null) return node.text;
  }
  return undefined;
}

/** Validates the whole file; throws (exit 2) listing every problem, else returns the definitions. */
export function parsePropertyFile(file: YamlFile): PropertyEntry[] {
  const problems = new FileProblems(file.name);
  const out: PropertyEntry[] = [];
  const seen = new Map<string, number>();
  const searchFields = new Map<string, { index: number; name: string }>();
  for (const { index, map } of fileEntries(file, problems, 'structured property definitions')) {
    const id = entryId(map);
    const entry: EntryRef = { index, ...(id !== undefined ? { id } : {}) };
    const reader = new PropertyEntryReader(problems, entry);
    checkKeys(map, PROPERTY_KEYS, problems, entry);
    const before = problems.count;
    const definition = readEntry(reader, map);
    if (!definition || problems.count > before) continue;
    const urn = `${URN_PREFIX}${definition.qualifiedName}`;
    const earlier = seen.get(urn);
    if (earlier !== undefined) {
      reader.fail(map.line, 'id', `${urn} is already defined by entry ${earlier}`);
      continue;
    }
    seen.set(urn, index);
    const twin = searchFields.get(searchFieldName(definition.qualifiedName));
    if (twin) {
      reader.fail(map.line, 'id', `'${definition.qualifiedName}' collides with '${twin.name}' of entry ${twin.index}: names that differ only by '.' and '_' share one search field`);
      continue;
    }
    searchFields.set(searchFieldName(definition.qualifiedName), { index, name: definition.qualifiedName });
    try {
      // The server's own rules, run here so that a file the server would reject fails before any write.
      parsePropertyDefinition(definition, definition.qualifiedName);
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      reader.fail(map.line, yamlFieldOf(err.field) ?? 'definition', err.message);
      continue;
    }
    out.push({ entry, line: map.line, urn, definition });
  }
  problems.throwIfAny();
  return out;
}
