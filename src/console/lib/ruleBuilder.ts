/**
 * The metadata-test form (issue #41: tests were JSON with URN paths): the asset types a
 * test applies to, and rules that each compare one property, picked by name, with an
 * operator people read (=, ≠, <, ≤, >, ≥, exists, in, matches) and values. It writes the
 * definition grammar of docs/metadata-tests.md, which the API checks as for any test, and
 * reads back the definitions it could have written; anything else stays JSON.
 */
import { valueTypeOfStd } from '../../domain/registry/valueTypes.js';
import { formatDouble } from '../../domain/typedValue.js';
import type { PropertySummaryFragment } from '../generated/graphql';

export type FormOperator = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge' | 'exists' | 'in' | 'matches';

export interface OperatorChoice {
  readonly id: FormOperator;
  readonly label: string;
  /** How many values it takes. */
  readonly takes: 'none' | 'one' | 'many';
  /** Compares numbers: offered for number properties only. */
  readonly numeric?: boolean;
}

export const FORM_OPERATORS: readonly OperatorChoice[] = [
  { id: 'eq', label: '= equals', takes: 'one' },
  { id: 'ne', label: '≠ does not equal', takes: 'one' },
  { id: 'lt', label: '< less than', takes: 'one', numeric: true },
  { id: 'le', label: '≤ at most', takes: 'one', numeric: true },
  { id: 'gt', label: '> greater than', takes: 'one', numeric: true },
  { id: 'ge', label: '≥ at least', takes: 'one', numeric: true },
  { id: 'exists', label: 'exists (has a value)', takes: 'none' },
  { id: 'in', label: 'in (one of)', takes: 'many' },
  { id: 'matches', label: 'matches (a regular expression)', takes: 'one' },
];

/** The definition grammar's operator for each form operator (≠ is `not` around equals). */
const GRAMMAR: Record<Exclude<FormOperator, 'ne' | 'in'>, string> = {
  eq: 'equals',
  lt: 'less_than',
  le: 'less_than_or_equal_to',
  gt: 'greater_than',
  ge: 'greater_than_or_equal_to',
  exists: 'exists',
  matches: 'regex_match',
};

export interface RuleRow {
  readonly key: number;
  /** A property path of the grammar: `structuredProperties.<urn>`, `datasetProperties.description`, `urn`, ... */
  property: string;
  operator: FormOperator;
  values: string[];
}

export interface RuleForm {
  types: string[];
  match: 'all' | 'any';
  rules: RuleRow[];
}

/** What the form offers besides structured properties, per the asset types it covers. */
export interface AssetField {
  readonly path: string;
  readonly label: string;
  /** Only when the test applies to datasets alone (the paths are of dataset aspects). */
  readonly datasetOnly?: boolean;
}

export const ASSET_FIELDS: readonly AssetField[] = [
  { path: 'datasetProperties.name', label: 'Name', datasetOnly: true },
  { path: 'datasetProperties.description', label: 'Description', datasetOnly: true },
  { path: 'datasetKey.platform', label: 'Platform', datasetOnly: true },
  { path: 'datasetKey.origin', label: 'Environment', datasetOnly: true },
  { path: 'globalTags.tags.tag', label: 'Tags' },
  { path: 'glossaryTerms.terms.urn', label: 'Glossary terms' },
  { path: 'ownership.owners.owner', label: 'Owners' },
  { path: 'domains.domains', label: 'Domain' },
  { path: 'urn', label: 'URN' },
];

const PROPERTY_PATH = 'structuredProperties.';

let keys = 0;
export const newRule = (property = '', operator: FormOperator = 'eq', values: string[] = []): RuleRow => ({ key: ++keys, property, operator, values });

export const EMPTY_RULES: RuleForm = { types: ['dataset'], match: 'all', rules: [] };

export const propertyPath = (urn: string): string => `${PROPERTY_PATH}${urn}`;

/** The structured property a path names, among those known. */
export function propertyOfPath(path: string, properties: readonly PropertySummaryFragment[]): PropertySummaryFragment | undefined {
  return path.startsWith(PROPERTY_PATH) ? properties.find((p) => p.urn === path.slice(PROPERTY_PATH.length)) : undefined;
}

export const isNumberProperty = (p: PropertySummaryFragment | undefined): boolean => p !== undefined && valueTypeOfStd(p.definition.valueType.info.type)?.stored === 'double';

/** The operators a property can take: comparisons only for numbers. */
export function operatorsFor(p: PropertySummaryFragment | undefined): readonly OperatorChoice[] {
  return FORM_OPERATORS.filter((o) => !o.numeric || isNumberProperty(p));
}

/** The fields the form offers for the asset types (dataset aspects only for datasets alone). */
export function assetFieldsFor(types: readonly string[]): readonly AssetField[] {
  const datasetsOnly = types.length === 1 && types[0] === 'dataset';
  return ASSET_FIELDS.filter((f) => !f.datasetOnly || datasetsOnly);
}

/** Values as the tests compare them: a number property's as `365.0`, as its values read (equals compares text). */
function grammarValues(values: readonly string[], number: boolean): string[] {
  const kept = values.map((v) => v.trim()).filter((v) => v !== '');
  return number ? kept.map((v) => (Number.isFinite(Number(v)) ? formatDouble(Number(v)) : v)) : kept;
}

function leafOf(rule: RuleRow, properties: readonly PropertySummaryFragment[]): Record<string, unknown> {
  const number = isNumberProperty(propertyOfPath(rule.property, properties));
  const values = grammarValues(rule.values, number);
  if (rule.operator === 'exists') return { property: rule.property, operator: 'exists' };
  if (rule.operator === 'ne') return { not: { property: rule.property, operator: 'equals', values: values.slice(0, 1) } };
  if (rule.operator === 'in') return { property: rule.property, operator: 'equals', values };
  return { property: rule.property, operator: GRAMMAR[rule.operator], values: values.slice(0, 1) };
}

/** The test definition the form stands for. */
export function definitionOf(form: RuleForm, properties: readonly PropertySummaryFragment[]): Record<string, unknown> {
  const leaves = form.rules.map((r) => leafOf(r, properties));
  return { on: { types: form.types }, rules: form.match === 'any' ? { or: leaves } : leaves };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const stringsOf = (v: unknown): string[] | null => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null);
const only = (o: Json, ...keys: string[]) => Object.keys(o).every((k) => keys.includes(k));

function ruleOf(leaf: unknown, properties: readonly PropertySummaryFragment[]): RuleRow | null {
  if (!isObject(leaf)) return null;
  if (only(leaf, 'not') && isObject(leaf.not)) {
    const inner = ruleOf(leaf.not, properties);
    return inner && inner.operator === 'eq' ? { ...inner, operator: 'ne' } : null;
  }
  if (!only(leaf, 'property', 'operator', 'values') || typeof leaf.property !== 'string' || typeof leaf.operator !== 'string') return null;
  const values = leaf.values === undefined ? [] : stringsOf(leaf.values);
  if (values === null) return null;
  // Shown as people write numbers: 365, not 365.0.
  const shown = isNumberProperty(propertyOfPath(leaf.property, properties)) ? values.map((v) => (Number.isFinite(Number(v)) ? String(Number(v)) : v)) : values;
  if (leaf.operator === 'equals') return values.length === 1 ? newRule(leaf.property, 'eq', shown) : newRule(leaf.property, 'in', shown);
  if (leaf.operator === 'exists' && values.length === 0) return newRule(leaf.property, 'exists');
  const id = (Object.entries(GRAMMAR) as Array<[FormOperator, string]>).find(([, g]) => g === leaf.operator)?.[0];
  return id && values.length === 1 ? newRule(leaf.property, id, shown) : null;
}

/**
 * The form of a definition's JSON, when the form could have written it (no conditions,
 * one level of rules); null otherwise: it is then edited as JSON.
 */
export function rulesOf(json: string, properties: readonly PropertySummaryFragment[]): RuleForm | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (!isObject(parsed) || !only(parsed, 'on', 'rules') || !isObject(parsed.on) || !only(parsed.on, 'types')) return null;
  const types = stringsOf(parsed.on.types);
  if (!types) return null;
  let match: RuleForm['match'] = 'all';
  let leaves: unknown[];
  if (Array.isArray(parsed.rules)) leaves = parsed.rules;
  else if (isObject(parsed.rules) && only(parsed.rules, 'or') && Array.isArray(parsed.rules.or)) {
    match = 'any';
    leaves = parsed.rules.or;
  } else if (isObject(parsed.rules) && only(parsed.rules, 'and') && Array.isArray(parsed.rules.and)) leaves = parsed.rules.and;
  else leaves = [parsed.rules];
  const rules = leaves.map((l) => ruleOf(l, properties));
  return rules.every((r): r is RuleRow => r !== null) ? { types, match, rules } : null;
}
