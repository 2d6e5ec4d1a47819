/**
 * Metadata test definitions (docs/contract.md §7): parsing the untrusted JSON text of a test into
 * a typed predicate tree, with errors that name the offending part by its path in
 * the definition (`rules.or[1].operator`).
 *
 *   {"on": {"types": [entity names], "conditions"?: <predicate>}, "rules": <predicate>}
 *
 * A predicate is an array (AND), `{"and": [...]}`, `{"or": [...]}`, `{"not": p}` or a
 * leaf `{"property": <path>, "operator": <op>, "values"?: [...]}`. DataHub's legacy
 * spellings are accepted: `query` for `property`, `operation` for `operator`,
 * `params: {values | value}` and a single `value` for `values`, `negate: true` for
 * `not`, and `match` for `conditions`.
 */
import { ENTITY, findEntityType, type EntityTypeInfo } from './registry/entityTypes.js';
import { ValidationError } from './errors.js';
import type * as z from 'zod';
import { findInputViolation, formatPath } from './inputLimits.js';
import { shapeOf } from './shapes/shape.js';
import { DEFINITION_KEYS, LEAF_KEYS, PARAMS_KEYS } from './shapes/testDefinition.js';
import { TEST_LIMITS } from './testLimits.js';
import { jsonNestingViolation } from './textNesting.js';
import { formatDouble } from './typedValue.js';
import { tryParseUrn } from './urn.js';

export const OPERATORS = [
  'equals',
  'contains_any',
  'contains_str',
  'starts_with',
  'regex_match',
  'greater_than',
  'greater_than_or_equal_to',
  'less_than',
  'less_than_or_equal_to',
  'exists',
  'is_true',
  'is_false',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** Operators that look at the resolved values only and take no `values`. */
const UNARY: ReadonlySet<Operator> = new Set(['exists', 'is_true', 'is_false']);
const NUMERIC: ReadonlySet<Operator> = new Set(['greater_than', 'greater_than_or_equal_to', 'less_than', 'less_than_or_equal_to']);

export type PropertyPath =
  | { readonly kind: 'urn' }
  | { readonly kind: 'entityType' }
  | { readonly kind: 'structuredProperty'; readonly propertyUrn: string }
  | { readonly kind: 'aspect'; readonly aspect: string; readonly fields: readonly string[] };

export interface LeafPredicate {
  readonly kind: 'leaf';
  /** The property path as written, for messages. */
  readonly property: string;
  readonly path: PropertyPath;
  readonly operator: Operator;
  readonly values: readonly string[];
  /** For regex_match: the values compiled, anchored at both ends. */
  readonly patterns?: readonly RegExp[];
}

export type Predicate =
  | { readonly kind: 'and'; readonly children: readonly Predicate[] }
  | { readonly kind: 'or'; readonly children: readonly Predicate[] }
  | { readonly kind: 'not'; readonly child: Predicate }
  | LeafPredicate;

export interface TestDefinition {
  readonly on: { readonly types: readonly string[]; readonly conditions?: Predicate };
  readonly rules: Predicate;
}

function fail(path: string, reason: string): never {
  throw new ValidationError(`Invalid test definition: ${path}: ${reason}`, path);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`;
}

/** Parses a definition's JSON text (testInfo.definition.json). */
export function parseTestDefinitionJson(json: string): TestDefinition {
  if (json.length > TEST_LIMITS.definitionLength) {
    throw new ValidationError(
      `Invalid test definition: longer than the limit of ${TEST_LIMITS.definitionLength} characters`,
      'definition.json',
    );
  }
  // Deep nesting is refused before JSON.parse builds it.
  const deep = jsonNestingViolation(json);
  if (deep) fail(formatPath(deep.path), deep.reason);
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (err) {
    throw new ValidationError(`Invalid test definition: not valid JSON (${(err as Error).message})`, 'definition.json');
  }
  // The JSON text is decoded here, so the input limits of docs/contract.md §12 apply to what it decodes to.
  const violation = findInputViolation(raw);
  if (violation) fail(formatPath(violation.path), violation.reason);
  return parseTestDefinition(raw);
}

/** Fails with the first problem of `raw`'s keys and kinds, at its path under `at`. */
function checkKeys(schema: z.ZodType, raw: unknown, at: string): void {
  const shaped = shapeOf(schema, raw);
  if (shaped.ok) return;
  const { path, reason } = shaped.problems[0]!;
  const inner = formatPath(path);
  if (at === '' || path.length === 0) fail(at || inner, reason);
  fail(inner.startsWith('[') ? `${at}${inner}` : `${at}.${inner}`, reason);
}

export function parseTestDefinition(raw: unknown): TestDefinition {
  if (!isObject(raw)) fail('(root)', `must be an object with "on" and "rules", got ${kindOf(raw)}`);
  checkKeys(DEFINITION_KEYS, raw, '');
  const on = raw.on as Record<string, unknown>;
  const types = parseTypes(on.types);
  const parser = new PredicateParser(types);
  if (on.conditions !== undefined && on.match !== undefined) fail('on.match', 'give "conditions" or its legacy name "match", not both');
  const conditionsKey = on.conditions !== undefined ? 'conditions' : on.match !== undefined ? 'match' : undefined;
  const conditions = conditionsKey ? parser.parse(on[conditionsKey], `on.${conditionsKey}`, 0) : undefined;
  if (raw.rules === undefined) fail('rules', 'is required');
  const rules = parser.parse(raw.rules, 'rules', 0);
  return { on: { types: types.map((t) => t.name), ...(conditions ? { conditions } : {}) }, rules };
}

function parseTypes(raw: unknown): EntityTypeInfo[] {
  if (raw === undefined) fail('on.types', 'is required: a list of entity type names such as ["dataset"]');
  if (!Array.isArray(raw)) fail('on.types', `must be a list of entity type names, got ${kindOf(raw)}`);
  if (raw.length === 0) fail('on.types', 'must name at least one entity type');
  if (raw.length > TEST_LIMITS.types) fail('on.types', `has more than the limit of ${TEST_LIMITS.types} entries`);
  const out: EntityTypeInfo[] = [];
  raw.forEach((t, i) => {
    const at = `on.types[${i}]`;
    if (typeof t !== 'string') fail(at, `must be an entity type name, got ${kindOf(t)}`);
    const type = findEntityType(t);
    if (!type) fail(at, `unknown entity type ${JSON.stringify(t)}`);
    if (!out.includes(type)) out.push(type);
  });
  return out;
}

const LOGICAL_KEYS = ['and', 'or', 'not'] as const;
const RESULTS_ASPECT = 'testResults';
const STRUCTURED_PROPERTY_PREFIX = 'structuredProperties.urn:li:';

class PredicateParser {
  private count = 0;

  constructor(private readonly types: readonly EntityTypeInfo[]) {}

  parse(raw: unknown, at: string, depth: number): Predicate {
    if (depth > TEST_LIMITS.predicateDepth) fail(at, `nests and/or/not deeper than the limit of ${TEST_LIMITS.predicateDepth}`);
    if (++this.count > TEST_LIMITS.predicates) fail(at, `the definition has more than the limit of ${TEST_LIMITS.predicates} predicates`);
    if (Array.isArray(raw)) return { kind: 'and', children: this.list(raw, at, depth) };
    if (!isObject(raw)) fail(at, `must be a predicate (an object or a list), got ${kindOf(raw)}`);
    const logical = LOGICAL_KEYS.filter((k) => raw[k] !== undefined);
    if (logical.length > 1) fail(at, `has both "${logical[0]}" and "${logical[1]}"; nest them instead`);
    const negated = this.negation(raw, at);
    if (logical.length === 1) {
      const key = logical[0]!;
      const extra = Object.keys(raw).filter((k) => k !== key && k !== 'negate');
      if (extra.length > 0) fail(`${at}.${extra[0]}`, `unexpected beside "${key}"`);
      let p: Predicate;
      if (key === 'not') {
        p = { kind: 'not', child: this.parse(raw.not, `${at}.not`, depth + 1) };
      } else {
        const list = raw[key];
        if (!Array.isArray(list)) fail(`${at}.${key}`, `must be a list of predicates, got ${kindOf(list)}`);
        p = { kind: key, children: this.list(list, `${at}.${key}`, depth) };
      }
      return negated ? { kind: 'not', child: p } : p;
    }
    const leaf = this.leaf(raw, at);
    return negated ? { kind: 'not', child: leaf } : leaf;
  }

  private list(raw: unknown[], at: string, depth: number): Predicate[] {
    return raw.map((item, i) => this.parse(item, `${at}[${i}]`, depth + 1));
  }

  private negation(raw: Record<string, unknown>, at: string): boolean {
    if (raw.negate === undefined) return false;
    if (typeof raw.negate !== 'boolean') fail(`${at}.negate`, `must be true or false, got ${kindOf(raw.negate)}`);
    return raw.negate;
  }

  private leaf(raw: Record<string, unknown>, at: string): LeafPredicate {
    checkKeys(LEAF_KEYS, raw, at);
    const property = this.alias(raw, at, 'property', 'query');
    if (property === undefined) fail(at, 'a predicate needs "property" (or "and", "or", "not")');
    if (typeof property !== 'string') fail(`${at}.property`, `must be a string, got ${kindOf(property)}`);
    const path = this.propertyPath(property, `${at}.property`);
    const opRaw = this.alias(raw, at, 'operator', 'operation');
    if (opRaw === undefined) fail(`${at}.operator`, `is required; one of ${OPERATORS.join(', ')}`);
    if (typeof opRaw !== 'string') fail(`${at}.operator`, `must be a string, got ${kindOf(opRaw)}`);
    const operator = opRaw.toLowerCase() as Operator;
    if (!OPERATORS.includes(operator)) fail(`${at}.operator`, `unknown operator ${JSON.stringify(opRaw)}; one of ${OPERATORS.join(', ')}`);
    const { values, valuesAt } = this.values(raw, at);
    if (UNARY.has(operator)) {
      if (values !== undefined) fail(valuesAt, `${operator} takes no values`);
      return { kind: 'leaf', property, path, operator, values: [] };
    }
    if (values === undefined || values.length === 0) fail(valuesAt, `${operator} needs at least one value`);
    if (NUMERIC.has(operator)) {
      values.forEach((v, i) => {
        if (parseDecimal(v) === undefined) fail(`${valuesAt}[${i}]`, `${operator} compares numbers; ${JSON.stringify(v)} is not a number`);
      });
    }
    if (operator === 'regex_match') {
      const patterns = values.map((v, i) => compilePattern(v, `${valuesAt}[${i}]`));
      return { kind: 'leaf', property, path, operator, values, patterns };
    }
    return { kind: 'leaf', property, path, operator, values };
  }

  private alias(raw: Record<string, unknown>, at: string, name: string, legacy: string): unknown {
    if (raw[name] !== undefined && raw[legacy] !== undefined) fail(`${at}.${legacy}`, `give "${name}" or its legacy name "${legacy}", not both`);
    return raw[name] !== undefined ? raw[name] : raw[legacy];
  }

  /** `values: [...]`, `value: x`, or legacy `params: {values: [...]}` / `params: {value: x}`. */
  private values(raw: Record<string, unknown>, at: string): { values: string[] | undefined; valuesAt: string } {
    const given = ['values', 'value', 'params'].filter((k) => raw[k] !== undefined);
    if (given.length > 1) fail(`${at}.${given[1]}`, `give only one of "values", "value" and "params"`);
    if (given.length === 0) return { values: undefined, valuesAt: `${at}.values` };
    let source = raw[given[0]!];
    let sourceAt = `${at}.${given[0]}`;
    if (given[0] === 'params') {
      if (!isObject(source)) fail(sourceAt, `must be an object such as {"values": [...]}, got ${kindOf(source)}`);
      checkKeys(PARAMS_KEYS, source, sourceAt);
      const keys = Object.keys(source);
      if (keys.length !== 1) fail(sourceAt, 'must hold exactly one of "values" and "value"');
      source = source[keys[0]!];
      sourceAt = `${sourceAt}.${keys[0]}`;
    }
    // DataHub accepts a single string wherever a list of strings goes, and a list under "value".
    const list = Array.isArray(source) ? source : [source];
    if (list.length > TEST_LIMITS.valuesPerPredicate) fail(sourceAt, `has more than the limit of ${TEST_LIMITS.valuesPerPredicate} values`);
    const values = list.map((v, i) => valueText(v, Array.isArray(source) ? `${sourceAt}[${i}]` : sourceAt));
    return { values, valuesAt: sourceAt };
  }

  private propertyPath(property: string, at: string): PropertyPath {
    if (property === 'urn') return { kind: 'urn' };
    if (property === 'entityType') return { kind: 'entityType' };
    if (property.startsWith(STRUCTURED_PROPERTY_PREFIX)) {
      const urn = property.slice('structuredProperties.'.length);
      const parsed = tryParseUrn(urn);
      if (!parsed.ok || parsed.urn.entityType !== ENTITY.structuredProperty) {
        fail(at, `structuredProperties.<property urn> needs a structured property urn; ${JSON.stringify(urn)} is not one${parsed.ok ? '' : ` (${parsed.reason})`}`);
      }
      return { kind: 'structuredProperty', propertyUrn: urn };
    }
    const fields = property.split('.');
    if (fields.some((f) => f.length === 0)) fail(at, `${JSON.stringify(property)} is not a property path such as datasetProperties.description`);
    const aspect = fields[0]!;
    // Results are computed from the other aspects; a test reading them would depend on the order tests run in.
    if (aspect === RESULTS_ASPECT) fail(at, `${JSON.stringify(property)}: a test cannot read ${RESULTS_ASPECT}, which tests write`);
    if (aspect === 'structuredProperties' && fields.length > 1 && fields[1] !== 'properties') {
      fail(at, `${JSON.stringify(property)}: name a structured property by its urn, e.g. structuredProperties.urn:li:structuredProperty:${fields.slice(1).join('.')}`);
    }
    const known = this.types.some((t) => t.keyAspect === aspect || t.aspects.includes(aspect));
    if (!known) {
      fail(
        at,
        `${JSON.stringify(property)}: ${aspect} is not an aspect of ${this.types.map((t) => t.name).join(' or ')}; ` +
          'a path is urn, entityType, structuredProperties.<property urn> or <aspect>.<field>...',
      );
    }
    return { kind: 'aspect', aspect, fields: fields.slice(1) };
  }
}

/**
 * The aspects a definition reads (its conditions and rules): what an evaluation must
 * load of an entity. `structuredProperties` stands for every structured property path.
 */
export function aspectsRead(definition: TestDefinition): string[] {
  const out = new Set<string>();
  const walk = (p: Predicate): void => {
    if (p.kind === 'and' || p.kind === 'or') p.children.forEach(walk);
    else if (p.kind === 'not') walk(p.child);
    else if (p.path.kind === 'aspect') out.add(p.path.aspect);
    else if (p.path.kind === 'structuredProperty') out.add('structuredProperties');
  };
  if (definition.on.conditions) walk(definition.on.conditions);
  walk(definition.rules);
  return [...out].sort();
}

/** The structured properties a definition names by URN. */
export function propertiesRead(definition: TestDefinition): string[] {
  const out = new Set<string>();
  const walk = (p: Predicate): void => {
    if (p.kind === 'and' || p.kind === 'or') p.children.forEach(walk);
    else if (p.kind === 'not') walk(p.child);
    else if (p.path.kind === 'structuredProperty') out.add(p.path.propertyUrn);
  };
  if (definition.on.conditions) walk(definition.on.conditions);
  walk(definition.rules);
  return [...out].sort();
}

/** Values are compared as text; a JSON number is written as a double (`60.0`), as structured property numbers resolve. */
function valueText(v: unknown, at: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return formatDouble(v);
  if (typeof v === 'boolean') return String(v);
  fail(at, `must be a string, number or boolean, got ${kindOf(v)}`);
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A decimal number written as text (`60`, `60.0`, `-1.5e3`); undefined otherwise. */
export function parseDecimal(s: string): number | undefined {
  const t = s.trim();
  if (!DECIMAL.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Compiles a regex_match value. A pattern must match the whole value, as in DataHub
 * (Java's `String.matches`); a leading `(?i)` makes it case-insensitive.
 */
function compilePattern(pattern: string, at: string): RegExp {
  if (pattern.length > TEST_LIMITS.regexPatternLength) fail(at, `regex is longer than the limit of ${TEST_LIMITS.regexPatternLength} characters`);
  const caseInsensitive = pattern.startsWith('(?i)');
  const body = caseInsensitive ? pattern.slice(4) : pattern;
  try {
    // Compiling checks the syntax as written, before anchoring can change what an error means.
    new RegExp(body);
    return new RegExp(`^(?:${body})$`, caseInsensitive ? 'i' : '');
  } catch (err) {
    fail(at, `invalid regex ${JSON.stringify(pattern)}: ${(err as Error).message}`);
  }
}
