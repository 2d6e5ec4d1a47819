/**
 * The dataset file (docs/contract.md §9): a list of datasets, each with `id`,
 * `platform`, `env` (default PROD) or an `urn`, `description` and `name`, dataset-level
 * `structured_properties`, and `schema.fields[]` (by `id` or `urn`) with their `type`,
 * `nativeDataType`, `description` and own `structured_properties`: DataHub's keys. The file's shape is yamlShapes.ts; values stay text until
 * datasetValues.ts types them by their properties' definitions.
 */
import { closestWord } from '../../domain/closestWord.js';
import { ENTITY, FABRIC_TYPES } from '../../domain/registry/entityTypes.js';
import type { PathSegment } from '../../domain/inputLimits.js';
import { shapeOf } from '../../domain/shapes/shape.js';
import { datasetUrn, schemaFieldUrn, tryParseUrn } from '../../domain/urn.js';
import { fileEntries, FileProblems, yamlPath, type EntryRef } from './fileProblems.js';
import { schemaFieldType, type SchemaFieldDataType } from './schemaFieldTypes.js';
import type { YamlFile } from './yamlFile.js';
import { datasetEntryShape, fieldEntryShape, wellShapedFields, wellShapedItems, type DatasetEntryShape } from './yamlShapes.js';

type FieldShape = NonNullable<NonNullable<DatasetEntryShape['schema']>['fields']>[number];

const PROPERTY_PREFIX = 'urn:li:structuredProperty:';
const PLATFORM_PREFIX = 'urn:li:dataPlatform:';

/** The values given for one property on one entity, still text. */
export interface Assignment {
  readonly propertyUrn: string;
  /** Where it was written, for messages: e.g. `structured_properties.io.acryl.sla`. */
  readonly field: string;
  readonly line: number;
  readonly values: readonly string[];
}

/** What the file says of a field in the dataset's schema; a key it does not give is kept as stored. */
export interface FieldFacts {
  readonly type?: SchemaFieldDataType;
  readonly nativeDataType?: string;
  readonly description?: string;
}

export interface FieldEntry {
  readonly fieldPath: string;
  readonly urn: string;
  readonly line: number;
  readonly facts: FieldFacts;
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
  /** `description` and `name` (a display name) for `datasetProperties`; a key not given is kept as stored. */
  readonly properties: { readonly description?: string; readonly name?: string };
  /** Undefined when the dataset has no `structured_properties` key: its aspect is left alone. */
  readonly assignments: readonly Assignment[] | undefined;
  readonly fields: readonly FieldEntry[];
}

type Values = Record<string, string | string[]> | null | undefined;

/** Reports a problem at a path inside one entry. */
class EntryReport {
  constructor(
    private readonly file: YamlFile,
    private readonly problems: FileProblems,
    private readonly path: PathSegment[],
    readonly entry: EntryRef,
  ) {}

  line(at: readonly PathSegment[]): number {
    return this.file.lineOf([...this.path, ...at]);
  }

  fail(at: readonly PathSegment[], reason: string): undefined {
    this.problems.add(this.line(at), this.entry, yamlPath(at), reason);
    return undefined;
  }

  get count(): number {
    return this.problems.count;
  }
}

function assignments(report: EntryReport, given: Values, at: PathSegment[]): Assignment[] | undefined {
  if (given === undefined) return undefined;
  const out: Assignment[] = [];
  for (const [key, value] of Object.entries(given ?? {})) {
    const where = [...at, key];
    const qualifiedName = key.startsWith(PROPERTY_PREFIX) ? key.slice(PROPERTY_PREFIX.length) : key;
    if (qualifiedName === '' || /\s/.test(qualifiedName)) {
      report.fail(where, `'${key}' is not a structured property name (a qualified name or ${PROPERTY_PREFIX}<qualified name>)`);
      continue;
    }
    const propertyUrn = `${PROPERTY_PREFIX}${qualifiedName}`;
    if (out.some((a) => a.propertyUrn === propertyUrn)) {
      report.fail(where, `${propertyUrn} is given more than once`);
      continue;
    }
    out.push({ propertyUrn, field: yamlPath(where), line: report.line(where), values: Array.isArray(value) ? value : [value] });
  }
  return out;
}

function datasetIdentity(report: EntryReport, e: DatasetEntryShape): { urn: string; platformUrn: string; name: string; origin: string } | undefined {
  let origin = 'PROD';
  if (e.env != null) {
    origin = e.env.toUpperCase();
    if (!FABRIC_TYPES.has(origin)) {
      const guess = closestWord(e.env, [...FABRIC_TYPES]);
      return report.fail(['env'], `'${e.env}' is not an environment; use one of ${[...FABRIC_TYPES].join(', ')}${guess ? ` (did you mean '${guess}'?)` : ''}`);
    }
  }
  if (e.urn != null) {
    const parsed = tryParseUrn(e.urn);
    if (!parsed.ok) return report.fail(['urn'], `'${e.urn}' is not a valid urn: ${parsed.reason}`);
    if (parsed.urn.entityType !== ENTITY.dataset) return report.fail(['urn'], `'${e.urn}' is not a dataset urn`);
    const [platformUrn, name, urnOrigin] = parsed.urn.parts as [string, string, string];
    if (e.id != null && e.id !== name) return report.fail(['id'], `'${e.id}' does not match the urn's name '${name}'`);
    if (e.platform != null && (e.platform.startsWith(PLATFORM_PREFIX) ? e.platform : `${PLATFORM_PREFIX}${e.platform}`) !== platformUrn) {
      return report.fail(['platform'], `'${e.platform}' does not match the urn's platform '${platformUrn}'`);
    }
    if (e.env != null && origin !== urnOrigin) return report.fail(['env'], `'${e.env}' does not match the urn's environment '${urnOrigin}'`);
    return { urn: parsed.urn.value, platformUrn, name, origin: urnOrigin };
  }
  if (e.id == null) report.fail(['id'], 'is required (or give urn)');
  if (e.platform == null) report.fail(['platform'], 'is required when urn is not given (e.g. hive, snowflake)');
  if (e.id == null || e.platform == null) return undefined;
  const urn = datasetUrn(e.platform, e.id, origin);
  const parsed = tryParseUrn(urn);
  if (!parsed.ok) return report.fail(['id'], `makes the dataset urn '${urn}', which is not valid: ${parsed.reason}`);
  return { urn, platformUrn: parsed.urn.parts[0]!, name: e.id, origin };
}

function readFields(report: EntryReport, fields: ReadonlyArray<FieldShape | undefined>, datasetUrnValue: string | undefined): FieldEntry[] {
  const out: FieldEntry[] = [];
  fields.forEach((field, i) => {
    if (!field) return undefined;
    const at: PathSegment[] = ['schema', 'fields', i];
    const given = assignments(report, field.structured_properties, [...at, 'structured_properties']);
    const facts = fieldFacts(report, field, at);
    if (field.id == null && field.urn == null) return report.fail([...at, 'id'], 'is required (or give urn)');
    let fieldPath = field.id ?? undefined;
    if (field.urn != null) {
      const parsed = tryParseUrn(field.urn);
      if (!parsed.ok) return report.fail([...at, 'urn'], `'${field.urn}' is not a valid urn: ${parsed.reason}`);
      if (parsed.urn.entityType !== ENTITY.schemaField) return report.fail([...at, 'urn'], `'${field.urn}' is not a schemaField urn`);
      const [parent, path] = parsed.urn.parts as [string, string];
      if (datasetUrnValue && parent !== datasetUrnValue) return report.fail([...at, 'urn'], `belongs to ${parent}, not to this dataset ${datasetUrnValue}`);
      if (field.id != null && field.id !== path) return report.fail([...at, 'id'], `'${field.id}' does not match the urn's field path '${path}'`);
      fieldPath = path;
    }
    if (!datasetUrnValue || fieldPath === undefined) return undefined;
    const urn = schemaFieldUrn(datasetUrnValue, fieldPath);
    const parsed = tryParseUrn(urn);
    if (!parsed.ok) return report.fail([...at, 'id'], `makes the field urn '${urn}', which is not valid: ${parsed.reason}`);
    if (out.some((f) => f.fieldPath === fieldPath)) return report.fail([...at, 'id'], `field '${fieldPath}' is listed more than once`);
    if (!facts) return undefined;
    out.push({ fieldPath, urn, line: report.line(at), facts, assignments: given });
    return undefined;
  });
  return out;
}

function fieldFacts(report: EntryReport, field: FieldShape, at: readonly PathSegment[]): FieldFacts | undefined {
  let type: SchemaFieldDataType | undefined;
  if (field.type != null) {
    const typed = schemaFieldType(field.type);
    if (!typed.ok) return report.fail([...at, 'type'], typed.reason);
    type = typed.type;
  }
  return {
    ...(type ? { type } : {}),
    // DataHub's schemas require a native type: the file's word stands for it when none is given.
    ...(field.nativeDataType != null ? { nativeDataType: field.nativeDataType } : field.type != null ? { nativeDataType: field.type } : {}),
    ...(field.description != null ? { description: field.description } : {}),
  };
}

function entryId(map: Record<string, unknown>): string | undefined {
  for (const key of ['id', 'urn']) if (typeof map[key] === 'string') return map[key] as string;
  return undefined;
}

/** Validates the file's shape (not yet the values' types); throws (exit 2) listing every problem. */
export function parseDatasetFile(file: YamlFile): DatasetEntry[] {
  const problems = new FileProblems(file.name);
  const out: DatasetEntry[] = [];
  const seen = new Map<string, number>();
  for (const { index, path, value } of fileEntries(file, problems, 'datasets')) {
    const id = entryId(value);
    const entry: EntryRef = { index, ...(id !== undefined ? { id } : {}) };
    const report = new EntryReport(file, problems, path, entry);
    const before = report.count;
    const shaped = shapeOf(datasetEntryShape, value);
    if (!shaped.ok) problems.addAll(file, path, entry, shaped.problems);
    // The rules still run on the well-shaped parts, so that every problem is found in one go.
    const fields: DatasetEntryShape = shaped.ok ? shaped.value : wellShapedFields(datasetEntryShape, value);
    const schema = value.schema as { fields?: unknown } | null | undefined;
    const fieldList = shaped.ok ? (fields.schema?.fields ?? []) : (wellShapedItems(fieldEntryShape, schema?.fields) ?? []);
    const identity = datasetIdentity(report, fields);
    const given = assignments(report, fields.structured_properties, ['structured_properties']);
    const fieldEntries = readFields(report, fieldList, identity?.urn);
    if (!identity || report.count > before) continue;
    const earlier = seen.get(identity.urn);
    if (earlier !== undefined) {
      report.fail(['id'], `${identity.urn} is already described by entry ${earlier}`);
      continue;
    }
    seen.set(identity.urn, index);
    const properties = {
      ...(fields.description != null ? { description: fields.description } : {}),
      ...(fields.name != null ? { name: fields.name } : {}),
    };
    out.push({ entry, line: file.lineOf(path), ...identity, properties, assignments: given, fields: fieldEntries });
  }
  problems.throwIfAny();
  return out;
}
