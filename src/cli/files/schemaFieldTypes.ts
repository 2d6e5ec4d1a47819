/**
 * A schema field's `type` in a dataset file, as DataHub's dataset file writes it (`string`,
 * `number`, ...), and the SchemaFieldDataType it stands for in the `schemaMetadata` aspect
 * (`{"type": {"com.linkedin.schema.StringType": {}}}`). The synonyms are the words
 * DataHub's own file reader and common SQL and Avro schemas use.
 */
import { closestWord } from '../../domain/closestWord.js';

const CLASSES = {
  string: 'StringType',
  number: 'NumberType',
  boolean: 'BooleanType',
  bytes: 'BytesType',
  fixed: 'FixedType',
  date: 'DateType',
  time: 'TimeType',
  enum: 'EnumType',
  null: 'NullType',
  map: 'MapType',
  array: 'ArrayType',
  union: 'UnionType',
  record: 'RecordType',
} as const;

const SYNONYMS: Readonly<Record<string, keyof typeof CLASSES>> = {
  str: 'string',
  text: 'string',
  int: 'number',
  integer: 'number',
  long: 'number',
  float: 'number',
  double: 'number',
  decimal: 'number',
  bool: 'boolean',
  timestamp: 'time',
  datetime: 'time',
  struct: 'record',
  list: 'array',
};

export type SchemaFieldDataType = { type: Record<string, Record<string, never>> };

/** The aspect's type for a file's word, or the reason it is not one. */
export function schemaFieldType(word: string): { ok: true; type: SchemaFieldDataType } | { ok: false; reason: string } {
  const key = word.trim().toLowerCase();
  const name = key in CLASSES ? (key as keyof typeof CLASSES) : SYNONYMS[key];
  if (name) return { ok: true, type: { type: { [`com.linkedin.schema.${CLASSES[name]}`]: {} } } };
  const guess = closestWord(key, [...Object.keys(CLASSES), ...Object.keys(SYNONYMS)]);
  return {
    ok: false,
    reason: `'${word}' is not a field type; use one of ${Object.keys(CLASSES).join(', ')}${guess ? ` (did you mean '${guess}'?)` : ''}; the type as the platform names it goes in nativeDataType`,
  };
}

/** The file's word for a stored type (`string` for StringType), for `dataset get`. */
export function schemaFieldTypeWord(stored: unknown): string | undefined {
  const union = (stored as { type?: unknown } | undefined)?.type;
  if (!union || typeof union !== 'object') return undefined;
  const className = Object.keys(union)[0]?.replace(/^com\.linkedin\.schema\./, '');
  return Object.entries(CLASSES).find(([, c]) => c === className)?.[0];
}
