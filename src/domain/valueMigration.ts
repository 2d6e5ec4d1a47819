/**
 * Migrations of stored values (docs/contract.md, "Definitions evolve"): a
 * definition change that breaks stored values may carry rules that keep them instead
 * of a new version that drops them all:
 * - `remap`: a value becomes another (`3 → 2`, a retired allowed value to its successor);
 * - `convert`: numbers become strings or strings numbers, for a value type change (every
 *   string must read as a number);
 * - `dropInvalid`: the values the new definition still refuses are dropped, and only those.
 * The same pure translation serves the dry run (what each rule does, with examples), the
 * check that the rules keep every stored value valid, what readers see while the job
 * rewrites the values, and the job itself.
 */
import * as z from 'zod';
import { ValidationError } from './errors.js';
import type { AllowedValue, Cardinality, EffectiveDefinition } from './propertyDefinition.js';
import { valueType, type DataType } from './registry/valueTypes.js';
import { shapeOf, throwProblems } from './shapes/shape.js';
import { typedValueShape } from './shapes/common.js';
import { coerceTypedValue, isDoubleValue, sameValue, valueAsWritten, type TypedValue } from './typedValue.js';

export interface ValueRemap {
  readonly from: TypedValue;
  readonly to: TypedValue;
}

export interface MigrationRules {
  readonly remap: readonly ValueRemap[];
  readonly convert: boolean;
  readonly dropInvalid: boolean;
}

/** What the translation needs of the new definition. */
export interface MigrationTarget {
  readonly valueType: DataType;
  readonly cardinality: Cardinality;
  readonly entityTypes: readonly string[];
  readonly allowedValues?: readonly TypedValue[];
  readonly allowedUrnTypes?: readonly string[];
}

/** A migration in progress, as the property registry holds it: values still under `fromGeneration` are read through it. */
export interface ActiveMigration {
  readonly fromGeneration: bigint;
  readonly rules: MigrationRules;
  readonly target: MigrationTarget;
}

const MAX_REMAPS = 1000;

export const migrationShape = z.strictObject({
  remap: z.array(z.strictObject({ from: typedValueShape, to: typedValueShape })).max(MAX_REMAPS).optional(),
  convert: z.boolean().optional(),
  dropInvalid: z.boolean().optional(),
});

/** Parses a migration as a request sends it (`{remap: [{from, to}], convert, dropInvalid}`); at least one rule. */
export function parseMigrationRules(input: unknown, field = 'migration'): MigrationRules {
  const shaped = shapeOf(migrationShape, input);
  if (!shaped.ok) throwProblems(shaped.problems, field);
  const { remap = [], convert = false, dropInvalid = false } = shaped.value;
  if (remap.length === 0 && !convert && !dropInvalid) {
    throw new ValidationError(`${field} names no rule: give remap (a list of {from, to} values), convert: true, or dropInvalid: true`, field);
  }
  const pairs = remap.map((r, i) => ({ from: typedOf(r.from, `${field}.remap[${i}].from`), to: typedOf(r.to, `${field}.remap[${i}].to`) }));
  pairs.forEach((r, i) => {
    if (pairs.findIndex((o) => sameValue(o.from, r.from)) !== i) {
      throw new ValidationError(`${field}.remap[${i}].from ${valueAsWritten(r.from)} is remapped more than once; map each value once`, `${field}.remap[${i}].from`);
    }
  });
  return { remap: pairs, convert, dropInvalid };
}

/** A shaped typed value with its number as a number (`{"double": "3"}` is sent too). */
function typedOf(v: { string?: string | undefined; double?: number | string | undefined }, field: string): TypedValue {
  if (v.string !== undefined) return { string: v.string };
  const n = Number(v.double);
  if (!Number.isFinite(n) || (typeof v.double === 'string' && v.double.trim() === '')) throw new ValidationError(`${field}.double must be a number, not ${valueAsWritten(v.double)}`, `${field}.double`);
  return { double: n };
}

export function migrationTargetOf(def: EffectiveDefinition): MigrationTarget {
  return {
    valueType: def.valueType,
    cardinality: def.cardinality,
    entityTypes: def.entityTypes,
    ...(def.allowedValues && def.allowedValues.length > 0 ? { allowedValues: def.allowedValues.map((a: AllowedValue) => a.value) } : {}),
    ...(def.allowedUrnTypes && def.allowedUrnTypes.length > 0 ? { allowedUrnTypes: def.allowedUrnTypes } : {}),
  };
}

/** A number as people write it: 1825, not 1825.0. */
function plainNumber(n: number): string {
  return String(n);
}

function convertValue(v: TypedValue, target: MigrationTarget): TypedValue | { refused: string } {
  const stored = valueType(target.valueType).stored;
  if (stored === 'double') {
    if (isDoubleValue(v)) return v;
    const coerced = coerceTypedValue(v, target.valueType);
    return coerced.ok ? coerced.value : { refused: `${valueAsWritten(v)} does not read as a number` };
  }
  return isDoubleValue(v) ? { string: plainNumber(v.double) } : v;
}

/** Why the new definition refuses one value; undefined when it accepts it. */
function valueProblem(v: TypedValue, target: MigrationTarget): string | undefined {
  const coerced = coerceTypedValue(v, target.valueType, target.allowedUrnTypes ? { allowedEntityTypes: target.allowedUrnTypes } : {});
  if (!coerced.ok || !sameValue(coerced.value, v)) return `${valueAsWritten(v)} ${coerced.ok ? 'is not stored in this form' : coerced.reason}`;
  if (target.allowedValues && !target.allowedValues.some((a) => sameValue(a, v))) return `${valueAsWritten(v)} is not an allowed value`;
  return undefined;
}

/** What the rules make of one entity's values of the property. */
export interface EntryTranslation {
  /** The values readers see and the job writes; null: the entry goes (every value dropped). */
  readonly values: readonly TypedValue[] | null;
  readonly remapped: number;
  readonly converted: number;
  readonly dropped: number;
  /** Values the rules leave invalid (without dropInvalid), with why. */
  readonly refused: readonly string[];
}

/** Translates one entity's values of the property (on an entity of `entityType`) by the rules, for the new definition. */
export function translateEntry(values: readonly TypedValue[], entityType: string, rules: MigrationRules, target: MigrationTarget): EntryTranslation {
  let remapped = 0;
  let converted = 0;
  let dropped = 0;
  const refused: string[] = [];
  const out: TypedValue[] = [];
  for (const original of values) {
    let v = original;
    const remap = rules.remap.find((r) => sameValue(r.from, v));
    if (remap) {
      v = remap.to;
      remapped++;
    }
    if (rules.convert) {
      const c = convertValue(v, target);
      if ('refused' in c) {
        if (rules.dropInvalid) dropped++;
        else refused.push(c.refused);
        continue;
      }
      if (!sameValue(c, v)) converted++;
      v = c;
    }
    const problem = valueProblem(v, target);
    if (problem) {
      if (rules.dropInvalid) dropped++;
      else refused.push(problem);
      continue;
    }
    // Two values that became one are kept once.
    if (out.some((w) => sameValue(w, v))) continue;
    out.push(v);
  }
  const entryProblem = !target.entityTypes.includes(entityType)
    ? `an entity of type ${entityType}, which the property no longer applies to`
    : target.cardinality === 'SINGLE' && out.length > 1
      ? `${out.length} values, where the property now takes one`
      : undefined;
  if (entryProblem) {
    if (rules.dropInvalid) return { values: null, remapped, converted, dropped: dropped + out.length, refused };
    return { values: out, remapped, converted, dropped, refused: [...refused, entryProblem] };
  }
  return { values: out.length > 0 ? out : null, remapped, converted, dropped, refused };
}

/** A stored entry of the property: the entity and its values. */
export interface HeldEntry {
  readonly entityUrn: string;
  readonly entityType: string;
  readonly values: readonly TypedValue[];
}

export interface RuleEffect {
  /** `remap {double=3.0} → {double=2.0}`, `convert`, `dropInvalid`. */
  readonly rule: string;
  readonly entities: number;
  readonly values: number;
  /** Up to ten entities it changes, before and after. */
  readonly examples: ReadonlyArray<{ readonly urn: string; readonly before: readonly TypedValue[]; readonly after: readonly TypedValue[] | null }>;
}

export interface MigrationEffect {
  /** Entities holding values of the property. */
  readonly holders: number;
  /** Entities whose values change. */
  readonly changed: number;
  readonly rules: readonly RuleEffect[];
  /** Values the rules leave invalid: the migration is refused while there are any. */
  readonly refused: { readonly entities: number; readonly values: number; readonly examples: ReadonlyArray<{ readonly urn: string; readonly reasons: readonly string[] }> };
}

const EXAMPLES = 10;

function remapName(r: ValueRemap): string {
  return `remap ${valueAsWritten(r.from)} → ${valueAsWritten(r.to)}`;
}

/** What the rules do to the stored entries, rule by rule, and what they leave refused. */
export function migrationEffect(entries: Iterable<HeldEntry>, rules: MigrationRules, target: MigrationTarget): MigrationEffect {
  const tally = new Map<string, { entities: number; values: number; examples: RuleEffect['examples'][number][] }>();
  const names = [...rules.remap.map(remapName), ...(rules.convert ? ['convert'] : []), ...(rules.dropInvalid ? ['dropInvalid'] : [])];
  for (const name of names) tally.set(name, { entities: 0, values: 0, examples: [] });
  const refused = { entities: 0, values: 0, examples: [] as Array<{ urn: string; reasons: string[] }> };
  let holders = 0;
  let changed = 0;
  const count = (name: string, n: number, entry: HeldEntry, after: readonly TypedValue[] | null) => {
    if (n === 0) return;
    const t = tally.get(name)!;
    t.entities++;
    t.values += n;
    if (t.examples.length < EXAMPLES) t.examples.push({ urn: entry.entityUrn, before: entry.values, after });
  };
  for (const entry of entries) {
    holders++;
    const t = translateEntry(entry.values, entry.entityType, rules, target);
    if (t.values === null || t.values.length !== entry.values.length || t.values.some((v, i) => !sameValue(v, entry.values[i]!))) changed++;
    for (const r of rules.remap) count(remapName(r), entry.values.filter((v) => sameValue(v, r.from)).length, entry, t.values);
    if (rules.convert) count('convert', t.converted, entry, t.values);
    if (rules.dropInvalid) count('dropInvalid', t.dropped, entry, t.values);
    if (t.refused.length > 0) {
      refused.entities++;
      refused.values += t.refused.length;
      if (refused.examples.length < EXAMPLES) refused.examples.push({ urn: entry.entityUrn, reasons: [...t.refused] });
    }
  }
  return { holders, changed, rules: names.map((rule) => ({ rule, ...tally.get(rule)! })), refused };
}

/** The refusal of a migration that leaves stored values invalid, naming them. */
export function uncoveredRefusal(propertyUrn: string, effect: MigrationEffect): ValidationError {
  const examples = effect.refused.examples.map((e) => `${e.urn}: ${e.reasons.join(', ')}`).join('; ');
  return new ValidationError(
    `This migration of ${propertyUrn} leaves ${effect.refused.values} stored value${effect.refused.values === 1 ? '' : 's'} on ${effect.refused.entities} ` +
      `entit${effect.refused.entities === 1 ? 'y' : 'ies'} invalid under the new definition (${examples}); remap them, or add dropInvalid: true to drop exactly those`,
    'migration',
    { propertyUrn },
  );
}

/** Whether the rules drop stored values (a destructive change, with the privilege it needs). */
export function dropsValues(effect: MigrationEffect): boolean {
  return effect.rules.some((r) => r.rule === 'dropInvalid' && r.values > 0);
}

/** Rules as JSON for the registry row and job payloads (typed values as they are, generation as text). */
export function activeMigrationJson(m: ActiveMigration): Record<string, unknown> {
  return { fromGeneration: String(m.fromGeneration), rules: m.rules as unknown, target: m.target as unknown };
}

export function activeMigrationOf(json: unknown): ActiveMigration | null {
  if (!json || typeof json !== 'object') return null;
  const j = json as { fromGeneration?: unknown; rules?: MigrationRules; target?: MigrationTarget };
  if (typeof j.fromGeneration !== 'string' || !j.rules || !j.target) return null;
  return { fromGeneration: BigInt(j.fromGeneration), rules: j.rules, target: j.target };
}
