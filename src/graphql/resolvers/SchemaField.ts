import { schemaFieldUrn } from '../../domain/urn.js';
import type { SchemaFieldDataType, SchemaFieldResolvers } from '../generated/resolvers-types.js';
import { globalTagsOf, glossaryTermsOf } from './datahubAspects.js';
import { entityModel } from './entityModel.js';

/** DataHub's field types by the record class the schemaMetadata aspect names (`com.linkedin.schema.StringType`). */
const FIELD_TYPES: Readonly<Record<string, SchemaFieldDataType>> = {
  BooleanType: 'BOOLEAN',
  FixedType: 'FIXED',
  StringType: 'STRING',
  BytesType: 'BYTES',
  NumberType: 'NUMBER',
  DateType: 'DATE',
  TimeType: 'TIME',
  EnumType: 'ENUM',
  NullType: 'NULL',
  MapType: 'MAP',
  ArrayType: 'ARRAY',
  UnionType: 'UNION',
  RecordType: 'STRUCT',
};

/** The type a stored field names, or NULL (DataHub's answer for a type it does not know). */
function fieldTypeOf(stored: Readonly<Record<string, unknown>>): SchemaFieldDataType {
  const holder = stored.type && typeof stored.type === 'object' ? (stored.type as { type?: unknown }).type : undefined;
  const recordClass = holder && typeof holder === 'object' ? Object.keys(holder)[0] : undefined;
  return (recordClass && FIELD_TYPES[recordClass.slice(recordClass.lastIndexOf('.') + 1)]) || 'NULL';
}

const flag = (v: unknown) => v === true;
const text = (v: unknown) => (typeof v === 'string' ? v : null);
const object = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : null);

export const SchemaField: SchemaFieldResolvers = {
  schemaFieldEntity: (field) => entityModel(schemaFieldUrn(field.datasetUrn, field.fieldPath)),
  type: (field) => fieldTypeOf(field.stored),
  nullable: (field) => flag(field.stored.nullable),
  recursive: (field) => flag(field.stored.recursive),
  isPartOfKey: (field) => flag(field.stored.isPartOfKey),
  isPartitioningKey: (field) => flag(field.stored.isPartitioningKey),
  label: (field) => text(field.stored.label),
  jsonPath: (field) => text(field.stored.jsonPath),
  globalTags: (field) => globalTagsOf(object(field.stored.globalTags), schemaFieldUrn(field.datasetUrn, field.fieldPath)),
  glossaryTerms: (field) => glossaryTermsOf(object(field.stored.glossaryTerms), schemaFieldUrn(field.datasetUrn, field.fieldPath)),
};
