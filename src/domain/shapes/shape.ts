/**
 * Shape schemas (zod) and the one way their failures are told: each problem names the
 * path of the field at fault and says what the field must be instead, e.g.
 * `allowedValues[1].value must be {"string": <text>} or {"double": <number>}`.
 * REST bodies, aspects written through any interface and the CLI's files are checked
 * with these; docs/decisions.md says why zod.
 */
import * as z from 'zod';
import { closestWord } from '../closestWord.js';
import { ValidationError } from '../errors.js';
import { formatPath, quoteInput, type PathSegment } from '../inputLimits.js';

export interface Problem {
  readonly path: readonly PathSegment[];
  /** The reason without the path: `must be a string, not 5`. */
  readonly reason: string;
}

export type Shaped<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problems: Problem[] };

/** A received value as messages show it: text quoted (bounded), containers by kind. */
export function describeInput(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return quoteInput(value);
  if (Array.isArray(value)) return 'a list';
  if (value !== null && typeof value === 'object') return 'an object';
  return String(value);
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a list',
  record: 'a JSON object',
  null: 'null',
};

function sizeReason(iss: { origin?: string; code: string; maximum?: unknown; minimum?: unknown }): string {
  const big = iss.code === 'too_big';
  const bound = Number(big ? iss.maximum : iss.minimum);
  switch (iss.origin) {
    case 'string':
      if (big) return `is longer than the limit of ${bound} characters`;
      return bound === 1 ? 'must not be empty' : `must be at least ${bound} characters long`;
    case 'array':
    case 'set':
      if (big) return `has more than the limit of ${bound} entries`;
      return bound === 1 ? 'must have at least one entry' : `must have at least ${bound} entries`;
    default:
      return big ? `must be at most ${bound}` : `must be at least ${bound}`;
  }
}

/** Zod's error map for every parse: the reason of a raw issue, without its path. */
function reasonOf(iss: z.core.$ZodRawIssue): string {
  switch (iss.code) {
    case 'invalid_type':
      return iss.input === undefined ? 'is required' : `must be ${EXPECTED[iss.expected] ?? iss.expected}, not ${describeInput(iss.input)}`;
    case 'too_big':
    case 'too_small':
      return sizeReason(iss);
    case 'invalid_value':
      return iss.values.length === 1
        ? `must be ${JSON.stringify(iss.values[0])}, not ${describeInput(iss.input)}`
        : `must be one of ${iss.values.map(String).join(', ')}, not ${describeInput(iss.input)}`;
    case 'unrecognized_keys':
      // Told per key, with the known fields (knownFieldsOf), by problemsOf.
      return 'is not a known field';
    case 'invalid_format':
      return `${describeInput(iss.input)} does not have the expected form`;
    case 'invalid_union':
      return `${describeInput(iss.input)} matches none of the accepted forms`;
    case 'invalid_key':
      return 'has a key that is not allowed';
    case 'invalid_element':
      return 'has an entry that is not allowed';
    default:
      return 'is not valid';
  }
}

/** The reason for one unknown field, suggesting the field it probably meant. */
export function unknownFieldReason(key: string, known: readonly string[]): string {
  const guess = closestWord(key, known);
  if (guess) return `is not a known field; did you mean '${guess}'?`;
  return known.length > 0 ? `is not a known field; expected one of ${known.join(', ')}` : 'is not a known field';
}

/** The fields the object that raised an unrecognized_keys issue knows (its schema's shape). */
function knownFieldsOf(iss: z.core.$ZodRawIssue): string[] {
  const shape = (iss.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape ?? {};
  return Object.keys(shape);
}

/**
 * The known fields of each unrecognized_keys issue of one parse, by the issue's `keys`
 * list: the error map sees the raw issue (with the schema), problemsOf the finished one
 * (without it), and the finished issue keeps the raw one's list.
 */
type KnownFields = WeakMap<readonly string[], readonly string[]>;

function problemsOf(issue: z.core.$ZodIssue, knownFields: KnownFields): Problem[] {
  const known = issue.code === 'unrecognized_keys' ? knownFields.get(issue.keys) : undefined;
  if (issue.code === 'unrecognized_keys' && known) {
    return issue.keys.map((key) => ({ path: [...issue.path, key] as PathSegment[], reason: unknownFieldReason(key, known) }));
  }
  return [{ path: issue.path as PathSegment[], reason: issue.message }];
}

/** Checks `input` against `schema`; every problem found, in document order. */
export function shapeOf<S extends z.ZodType>(schema: S, input: unknown): Shaped<z.output<S>> {
  const knownFields: KnownFields = new WeakMap();
  const error = (iss: z.core.$ZodRawIssue): string => {
    if (iss.code === 'unrecognized_keys') knownFields.set(iss.keys, knownFieldsOf(iss));
    return reasonOf(iss);
  };
  const result = schema.safeParse(input, { error, reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: result.error.issues.flatMap((issue) => problemsOf(issue, knownFields)) };
}

/** One problem as it is; several numbered (their reasons may hold semicolons), at most three shown. */
export function problemMessage(problems: readonly Problem[], root: string): string {
  const told = problems.slice(0, 3).map((p) => `${formatPath(p.path, root)} ${p.reason}`);
  if (problems.length === 1) return told[0]!;
  const more = problems.length - told.length;
  return `${problems.length} problems: ${told.map((t, i) => `(${i + 1}) ${t}`).join(' ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

export function throwProblems(problems: readonly Problem[], root: string): never {
  throw new ValidationError(problemMessage(problems, root), formatPath(problems[0]!.path, root));
}

/** The typed value of `input`, or a ValidationError naming each problem's path. */
export function parseShape<S extends z.ZodType>(schema: S, input: unknown, root: string): z.output<S> {
  const shaped = shapeOf(schema, input);
  if (!shaped.ok) throwProblems(shaped.problems, root);
  return shaped.value;
}

/** Prefixes problems found in a part of a larger value with the part's path. */
export function within(prefix: readonly PathSegment[], problems: readonly Problem[]): Problem[] {
  return problems.map((p) => ({ path: [...prefix, ...p.path], reason: p.reason }));
}
