/**
 * The dataset file (seed 2.2, SPEC 9): a list of datasets, each with `id`,
 * `platform`, `env` (default PROD) or an `urn`, dataset-level
 * `structured_properties`, and `schema.fields[]` (by `id` or `urn`) with their own
 * `structured_properties`. Values are scalars or lists of scalars; whether a
 * scalar is a number or a string is decided later by the property's definition.
 */
import { FABRIC_TYPES } from '../../domain/entityTypes.js';
import { datasetUrn, schemaFieldUrn, tryParseUrn } from '../../domain/urn.js';
import { FieldReader, fileEntries } from './fieldReader.js';
import { checkKeys, closestWord, FileProblems, type EntryRef } from './fileProblems.js';
import { describeKind, entryOf, type YamlFile, type YamlMap, type YamlScalar } from './yamlTree.js';

export const DATASET_KEYS = ['id', 'urn', 'platform', 'env', 'schema', 'structured_properties'] as const;
export const SCHEMA_KEYS = ['fields'] as const;
export const FIELD_KEYS = ['id', 'urn', 'structured_properties'] as const;

const PROPERTY_PREFIX = 'urn:li:structuredProperty:';
const PLATFORM_PREFIX = 'urn:li:dataPlatform:';

/** The values given for one property on one entity, still untyped. */
export interface Assignment {
  readonly propertyUrn: string;
  /** Where it was written, for messages: e.g. `structured_properties.io.acryl.sla`. */
  readonly field: string;
  readonly line: number;
  readonly scalars: readonly YamlScalar[];
}

export interface FieldEntry {
  readonly fieldPath: string;
  readonly urn: string;
  readonly line: number;
  /** Undefined when the field has no `structured_properties` key: its aspect is left alone. */
  readonly assignments: readonly Assignment[] | undefined;
}

export interface DatasetEntry {
  readonly entry: EntryRef;
  readonly line: number;
  readonly urn: string;
  readonly platformUrn: string;
  readonly name: string;
  readonly origin: string;
  /** Undefined when the dataset has no `structured_properties` key: its aspect is left alone. */
  readonly assignments: readonly Assignment[] | undefined;
  readonly fields: readonly FieldEntry[];
}

class DatasetEntryReader extends FieldReader {
  assignments(owner: YamlMap, prefix: string): Assignment[] | undefined {
    const field = `${prefix}structured_properties`;
    const map = this.map(owner, 'structured_properties', field);
    if (!map) return entryOf(owner, 'structured_properties') ? [] : undefined;
    const out: Assignment[] = [];
    for (const { key, keyLine, value } of map.entries) {
      const at = `${field}.${key}`;
      const qualifiedName = key.startsWith(PROPERTY_PREFIX) ? key.slice(PROPERTY_PREFIX.length) : key;
      if (qualifiedName === '' || /\s/.test(qualifiedName)) {
        this.fail(keyLine, at, `'${key}' is not a structured property name (a qualified name or ${PROPERTY_PREFIX}<qualified name>)`);
        continue;
      }
      const propertyUrn = `${PROPERTY_PREFIX}${qualifiedName}`;
      if (out.some((a) => a.propertyUrn === propertyUrn)) {
        this.fail(keyLine, at, `${propertyUrn} is given more than once`);
        continue;
      }
      const nodes = value.kind === 'seq' ? value.items : [value];
      if (value.kind === 'seq' && nodes.length === 0) {
        this.fail(value.line, at, 'needs at least one value');
        continue;
      }
      const scalars: YamlScalar[] = [];
      nodes.forEach((node, i) => {
        const where = value.kind === 'seq' ? `${at}[${i}]` : at;
        if (node.kind !== 'scalar') this.fail(node.line, where, `must be a plain value or a list of plain values, not ${describeKind(node)}`);
        else if (node.value === null) this.fail(node.line, where, 'must not be empty');
        else scalars.push(node);
      });
      if (scalars.length === nodes.length) out.push({ propertyUrn, field: at, line: keyLine, scalars });
    }
    return out;
  }
}

function datasetIdentity(reader: DatasetEntryReader, map: YamlMap): { urn: string; platformUrn: string; name: string; origin: string } | undefined {
  const urnText = reader.text(map, 'urn');
  const id = reader.text(map, 'id');
  const platform = reader.text(map, 'platform');
  const env = reader.text(map, 'env');

  let origin = 'PROD';
  if (env) {
    origin = env.text.toUpperCase();
    if (!FABRIC_TYPES.has(origin)) {
      const guess = closestWord(env.text, [...FABRIC_TYPES]);
      return reader.fail(env.line, 'env', `'${env.text}' is not an environment; use one of ${[...FABRIC_TYPES].join(', ')}${guess ? ` (did you mean '${guess}'?)` : ''}`);
    }
  }
  if (urnText) {
    const parsed = tryParseUrn(urnText.text);
    if (!parsed.ok) return reader.fail(urnText.line, 'urn', `'${urnText.text}' is not a valid urn: ${parsed.reason}`);
    if (parsed.urn.entityType.name !== 'dataset') return reader.fail(urnText.line, 'urn', `'${urnText.text}' is not a dataset urn`);
    const [platformUrn, name, urnOrigin] = parsed.urn.parts as [string, string, string];
    if (id && id.text !== name) return reader.fail(id.line, 'id', `'${id.text}' does not match the urn's name '${name}'`);
    if (platform && (platform.text.startsWith(PLATFORM_PREFIX) ? platform.text : `${PLATFORM_PREFIX}${platform.text}`) !== platformUrn) {
      return reader.fail(platform.line, 'platform', `'${platform.text}' does not match the urn's platform '${platformUrn}'`);
    }
    if (env && origin !== urnOrigin) return reader.fail(env.line, 'env', `'${env.text}' does not match the urn's environment '${urnOrigin}'`);
    return { urn: parsed.urn.value, platformUrn, name, origin: urnOrigin };
  }
  if (!id) reader.fail(map.line, 'id', 'is required (or give urn)');
  if (!platform) reader.fail(map.line, 'platform', 'is required when urn is not given (e.g. hive, snowflake)');
  if (!id || !platform) return undefined;
  const urn = datasetUrn(platform.text, id.text, origin);
  const parsed = tryParseUrn(urn);
  if (!parsed.ok) return reader.fail(id.line, 'id', `makes the dataset urn '${urn}', which is not valid: ${parsed.reason}`);
  return { urn, platformUrn: parsed.urn.parts[0]!, name: id.text, origin };
}

function readFields(reader: DatasetEntryReader, map: YamlMap, datasetUrnValue: string | undefined): FieldEntry[] {
  const schema = reader.map(map, 'schema');
  if (!schema) return [];
  checkKeys(schema, SCHEMA_KEYS, reader.problems, reader.entry, 'schema.');
  const list = reader.list(schema, 'fields', 'schema.fields');
  if (!list) return [];
  const out: FieldEntry[] = [];
  list.items.forEach((item, i) => {
    const prefix = `schema.fields[${i}]`;
    if (item.kind !== 'map') return reader.fail(item.line, prefix, `must be a mapping with id (or urn) and structured_properties, not ${describeKind(item)}`);
    checkKeys(item, FIELD_KEYS, reader.problems, reader.entry, `${prefix}.`);
    const id = reader.text(item, 'id', `${prefix}.id`);
    const urnText = reader.text(item, 'urn', `${prefix}.urn`);
    const assignments = reader.assignments(item, `${prefix}.`);
    if (!id && !urnText) return reader.fail(item.line, `${prefix}.id`, 'is required (or give urn)');
    let fieldPath = id?.text;
    if (urnText) {
      const parsed = tryParseUrn(urnText.text);
      if (!parsed.ok) return reader.fail(urnText.line, `${prefix}.urn`, `'${urnText.text}' is not a valid urn: ${parsed.reason}`);
      if (parsed.urn.entityType.name !== 'schemaField') return reader.fail(urnText.line, `${prefix}.urn`, `'${urnText.text}' is not a schemaField urn`);
      const [parent, path] = parsed.urn.parts as [string, string];
      if (datasetUrnValue && parent !== datasetUrnValue) {
        return reader.fail(urnText.line, `${prefix}.urn`, `belongs to ${parent}, not to this dataset ${datasetUrnValue}`);
      }
      if (id && id.text !== path) return reader.fail(id.line, `${prefix}.id`, `'${id.text}' does not match the urn's field path '${path}'`);
      fieldPath = path;
    }
    if (!datasetUrnValue || fieldPath === undefined) return undefined;
    const urn = schemaFieldUrn(datasetUrnValue, fieldPath);
    const parsed = tryParseUrn(urn);
    if (!parsed.ok) return reader.fail(item.line, `${prefix}.id`, `makes the field urn '${urn}', which is not valid: ${parsed.reason}`);
    if (out.some((f) => f.fieldPath === fieldPath)) return reader.fail(item.line, `${prefix}.id`, `field '${fieldPath}' is listed more than once`);
    out.push({ fieldPath, urn, line: item.line, assignments });
    return undefined;
  });
  return out;
}

function entryId(map: YamlMap): string | undefined {
  for (const key of ['id', 'urn']) {
    const node = entryOf(map, key)?.value;
    if (node?.kind === 'scalar' && node.value !== null) return node.text;
  }
  return undefined;
}

/** Validates the file's shape (not yet the values' types); throws (exit 2) listing every problem. */
export function parseDatasetFile(file: YamlFile): DatasetEntry[] {
  const problems = new FileProblems(file.name);
  const out: DatasetEntry[] = [];
  const seen = new Map<string, number>();
  for (const { index, map } of fileEntries(file, problems, 'datasets')) {
    const id = entryId(map);
    const entry: EntryRef = { index, ...(id !== undefined ? { id } : {}) };
    const reader = new DatasetEntryReader(problems, entry);
    checkKeys(map, DATASET_KEYS, problems, entry);
    const before = problems.count;
    const identity = datasetIdentity(reader, map);
    const assignments = reader.assignments(map, '');
    const fields = readFields(reader, map, identity?.urn);
    if (!identity || problems.count > before) continue;
    const earlier = seen.get(identity.urn);
    if (earlier !== undefined) {
      reader.fail(map.line, 'id', `${identity.urn} is already described by entry ${earlier}`);
      continue;
    }
    seen.set(identity.urn, index);
    out.push({ entry, line: map.line, ...identity, assignments, fields });
  }
  problems.throwIfAny();
  return out;
}
