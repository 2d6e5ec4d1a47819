/**
 * The value types a structured property may have: the one table every layer reads
 * (URN parsing, value checks, GraphQL's DataTypeInfo, search, the console's form, the
 * CLI's files). Adding a value type is a row here plus its GraphQL enum value.
 */
import { LIMITS } from '../limits.js';
import { tryParseUrn } from '../urn.js';

/** What a value of a type must satisfy beyond its stored form; rules from the definition. */
export interface ValueRules {
  /** For urn values: the entity type names the URN may have (typeQualifier.allowedTypes). */
  readonly allowedEntityTypes?: readonly string[];
}

export interface ValueTypeInfo {
  /** The name inside the data type URN (`urn:li:dataType:svc.<id>`) and in the CLI's files. */
  readonly id: string;
  /** GraphQL's StdDataType value. */
  readonly std: 'STRING' | 'RICH_TEXT' | 'NUMBER' | 'DATE' | 'URN';
  /** DataHub's display name (DataTypeInfo.displayName). */
  readonly displayName: string;
  /** The console's label in forms and lists. */
  readonly label: string;
  readonly description: string;
  /** What a value must be, in messages (`should be a <noun>`). */
  readonly noun: string;
  /** The key of the typed value object: `{"double": n}` or `{"string": s}`. */
  readonly stored: 'double' | 'string';
  /** Searched and faceted as numbers (ranges compare numerically). */
  readonly numeric: boolean;
  /** Values form an ordered range, on this scale: filters offer bounds, the console charts them as a histogram. */
  readonly scale?: 'number' | 'date';
  /** The input a person types a value into. */
  readonly editor: 'text' | 'markdown' | 'number' | 'date' | 'urn';
  /** Values name entities: a definition may restrict their types (typeQualifier), GraphQL resolves them. */
  readonly namesEntities: boolean;
  /** Longest text of a value (string-stored types). */
  readonly maxLength: number;
  /** A value of the type, as its typed value object holds it (docs, placeholders, tests). */
  readonly example: string | number;
  /** Why a text is not a value of this type, or undefined when it is one (string-stored types). */
  readonly problem?: (text: string, rules: ValueRules) => string | undefined;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Why a text is not a calendar date in the form YYYY-MM-DD, or undefined when it is one. */
function dateProblem(s: string): string | undefined {
  const m = DATE.exec(s);
  if (!m) return 'should be a date in the form YYYY-MM-DD';
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12) return `is not a date: there is no month ${m[2]}`;
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  const lastDay = new Date(0);
  lastDay.setUTCFullYear(y, mo, 0);
  const days = lastDay.getUTCDate();
  if (d < 1 || d > days) return `is not a date: ${m[1]}-${m[2]} has ${days} days`;
  return undefined;
}

function urnProblem(s: string, rules: ValueRules): string | undefined {
  const parsed = tryParseUrn(s);
  if (!parsed.ok) return `should be a valid urn (${parsed.reason})`;
  const allowed = rules.allowedEntityTypes;
  if (allowed && allowed.length > 0 && !allowed.includes(parsed.urn.entityType.name)) return `should be an urn of type ${allowed.join(' or ')}`;
  return undefined;
}

export const VALUE_TYPES = [
  {
    id: 'string',
    example: 'gold',
    noun: 'string',
    std: 'STRING',
    displayName: 'String',
    label: 'Text',
    description: 'A string of characters.',
    stored: 'string',
    numeric: false,
    editor: 'text',
    namesEntities: false,
    maxLength: LIMITS.stringValueLength,
  },
  {
    id: 'rich_text',
    example: 'Kept **30 days**, then archived.',
    noun: 'rich_text string',
    std: 'RICH_TEXT',
    displayName: 'Rich Text',
    label: 'Rich text',
    description: 'Text with Markdown formatting.',
    stored: 'string',
    numeric: false,
    editor: 'markdown',
    namesEntities: false,
    maxLength: LIMITS.richTextValueLength,
  },
  {
    id: 'number',
    example: 30,
    noun: 'number',
    std: 'NUMBER',
    displayName: 'Number',
    label: 'Number',
    description: 'A number, stored as a double.',
    stored: 'double',
    numeric: true,
    scale: 'number',
    editor: 'number',
    namesEntities: false,
    maxLength: 0,
  },
  {
    id: 'date',
    example: '2026-11-27',
    noun: 'date',
    std: 'DATE',
    displayName: 'Date',
    label: 'Date',
    description: 'A calendar date, written YYYY-MM-DD.',
    stored: 'string',
    numeric: false,
    scale: 'date',
    editor: 'date',
    namesEntities: false,
    maxLength: LIMITS.stringValueLength,
    problem: dateProblem,
  },
  {
    id: 'urn',
    example: 'urn:li:corpuser:jdoe',
    noun: 'urn',
    std: 'URN',
    displayName: 'Urn',
    label: 'Entity (URN)',
    description: 'The URN of another entity.',
    stored: 'string',
    numeric: false,
    editor: 'urn',
    namesEntities: true,
    maxLength: LIMITS.stringValueLength,
    problem: urnProblem,
  },
] as const satisfies readonly ValueTypeInfo[];

type ValueTypeRow = (typeof VALUE_TYPES)[number];
export type DataType = ValueTypeRow['id'];
export type StdDataType = ValueTypeInfo['std'];

/** The value type names, in the table's order. */
export const DATA_TYPES: readonly DataType[] = VALUE_TYPES.map((t) => t.id);

const byId = new Map<string, ValueTypeInfo & { readonly id: DataType }>(VALUE_TYPES.map((t) => [t.id, t]));
const byStd = new Map<string, ValueTypeInfo & { readonly id: DataType }>(VALUE_TYPES.map((t) => [t.std, t]));

export function valueType(id: DataType): ValueTypeInfo & { readonly id: DataType } {
  return byId.get(id)!;
}

export function findValueType(id: string): (ValueTypeInfo & { readonly id: DataType }) | undefined {
  return byId.get(id);
}

/** The value type of a GraphQL StdDataType value; undefined for OTHER. */
export function valueTypeOfStd(std: string): (ValueTypeInfo & { readonly id: DataType }) | undefined {
  return byStd.get(std);
}
