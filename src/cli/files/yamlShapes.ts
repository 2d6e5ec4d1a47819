/**
 * The shapes of the CLI's files (docs/contract.md §2, §3): which keys an entry has and whether
 * each holds a value, a list or a mapping. What the values mean is checked by the
 * domain's own schemas and rules (domain/shapes/, domain/propertyDefinition.ts,
 * domain/structuredProperties.ts), which the files' readers call.
 */
import { DATA_TYPES } from '../../domain/registry/valueTypes.js';
import * as z from 'zod';
import { describeYaml } from './fileProblems.js';

/** A scalar (all YAML scalars are text here); null means the key is given but empty. */
const scalar = (required?: string) =>
  z.string({
    error: (iss) => {
      if (iss.input === undefined) return required ? `is required: ${required}` : undefined;
      return iss.input === null ? 'must not be empty' : `must be a single value, not ${describeYaml(iss.input)}`;
    },
  });

const optionalScalar = scalar().nullish();

const list = (what: string, required: boolean) =>
  z.array(scalar(), {
    error: (iss) => {
      if (iss.input === undefined || iss.input === null) return required ? `is required: ${what}` : undefined;
      return `must be ${what}, not ${describeYaml(iss.input)}`;
    },
  });

const mapping = (what: string) =>
  ({ error: (iss: { input?: unknown; code: string }) => (iss.code === 'invalid_type' && iss.input !== undefined ? `must be ${what}, not ${describeYaml(iss.input)}` : undefined) });

export const propertyEntryShape = z.strictObject({
  id: optionalScalar,
  urn: optionalScalar,
  qualified_name: optionalScalar,
  type: scalar(`a data type: ${DATA_TYPES.slice(0, -1).join(', ')} or ${DATA_TYPES[DATA_TYPES.length - 1]}`),
  cardinality: optionalScalar,
  version: optionalScalar,
  display_name: optionalScalar,
  entity_types: list('a list of entity types such as dataset or urn:li:entityType:svc.dataFlow', true),
  description: optionalScalar,
  allowed_values: z
    .array(z.strictObject({ value: scalar('the allowed value'), description: optionalScalar }, mapping('a mapping with value and description')), {
      error: (iss) => (iss.input === undefined || iss.input === null ? undefined : `must be a list of {value, description} entries, not ${describeYaml(iss.input)}`),
    })
    .nullish(),
  immutable: scalar().regex(/^(true|false)$/i, { error: 'must be true or false' }).nullish(),
  type_qualifier: z.strictObject({ allowed_types: list('a list of entity types', false).nullish() }, mapping('a mapping with allowed_types')).nullish(),
});

export type PropertyEntryShape = z.output<typeof propertyEntryShape>;

/** One property's values on an entity: a plain value or a non-empty list of them. */
const propertyValues = z.union([scalar(), z.array(scalar()).min(1)], {
  error: (iss) => {
    const input = iss.input;
    if (input === null) return 'must not be empty';
    if (Array.isArray(input)) return input.length === 0 ? 'needs at least one value' : 'must be a list of plain values, not of lists or mappings';
    return 'must be a plain value or a list of plain values, not a mapping';
  },
});

const structuredProperties = z.record(z.string(), propertyValues, mapping('a mapping of property names to values')).nullish();

/** DataHub's dataset file keys (its `datahub dataset upsert`): a field's type, native type and description. */
export const fieldEntryShape = z.strictObject(
  {
    id: optionalScalar,
    urn: optionalScalar,
    type: optionalScalar,
    nativeDataType: optionalScalar,
    description: optionalScalar,
    structured_properties: structuredProperties,
  },
  mapping('a mapping with id (or urn), type, nativeDataType, description and structured_properties'),
);

export const datasetEntryShape = z.strictObject({
  id: optionalScalar,
  urn: optionalScalar,
  platform: optionalScalar,
  env: optionalScalar,
  name: optionalScalar,
  description: optionalScalar,
  schema: z
    .strictObject({ fields: z.array(fieldEntryShape, mapping('a list of fields')).nullish() }, mapping('a mapping with fields'))
    .nullish(),
  structured_properties: structuredProperties,
});

export type DatasetEntryShape = z.output<typeof datasetEntryShape>;

/**
 * The fields of an entry that have their shape, so that the rules still run on them
 * when another field is misshapen or misspelt and every problem is found in one go.
 */
export function wellShapedFields<S extends z.ZodObject>(schema: S, raw: Record<string, unknown>): Partial<z.output<S>> {
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const parsed = (field as z.ZodType).safeParse(raw[key]);
    if (parsed.success && parsed.data !== undefined) kept[key] = parsed.data;
  }
  return kept as Partial<z.output<S>>;
}

/** The entries of a list that have their shape, each at its position (the others are undefined). */
export function wellShapedItems<T>(element: z.ZodType<T>, raw: unknown): Array<T | undefined> | undefined {
  if (!Array.isArray(raw)) return undefined;
  return raw.map((item) => {
    const parsed = element.safeParse(item);
    return parsed.success ? parsed.data : undefined;
  });
}

/** A metadata test (`propgraph tests upsert -f`): its definition is a mapping, or its JSON text. */
export const testEntryShape = z.strictObject({
  id: optionalScalar,
  urn: optionalScalar,
  name: scalar('the test\'s name'),
  category: scalar('a category such as Governance'),
  description: optionalScalar,
  definition: z.union([z.string(), z.record(z.string(), z.unknown())], {
    error: (iss) =>
      iss.input === undefined || iss.input === null
        ? 'is required: a mapping with on and rules (docs/metadata-tests.md), or its JSON text'
        : `must be a mapping with on and rules, or its JSON text, not ${describeYaml(iss.input)}`,
  }),
});

export type TestEntryShape = z.output<typeof testEntryShape>;
