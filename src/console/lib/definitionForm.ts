/**
 * The property form's state, checked with the server's own definition rules
 * (src/domain/propertyDefinition.ts) before anything is sent, and turned into the
 * GraphQL inputs.
 */
import { ENTITY } from '../../domain/registry/entityTypes.js';
import { VALUE_TYPES, valueTypeOfStd } from '../../domain/registry/valueTypes.js';
import { ServiceError } from '../../domain/errors.js';
import { parsePropertyDefinition } from '../../domain/propertyDefinition.js';
import { DEFAULT_URN_NAMESPACE } from '../../domain/typeUrns.js';
import { tryParseUrn } from '../../domain/urn.js';
import type {
  AllowedValueInput,
  CreateStructuredPropertyInput,
  DefinitionFragment,
  PropertyCardinality,
  PropertyValueInput,
  ReplaceStructuredPropertyDefinitionInput,
  SettingsFragment,
  StructuredPropertyMigrationInput,
} from '../generated/graphql';
import { entityTypeName, valueText } from './properties';

export interface AllowedRow {
  readonly key: number;
  value: string;
  description: string;
}

export type SettingKey = Exclude<keyof SettingsFragment, '__typename'>;

/** DataHub's display settings (StructuredPropertySettings), in the order the form and the property page show them. */
export const SETTINGS: ReadonlyArray<{ readonly key: SettingKey; readonly label: string }> = [
  { key: 'showInSearchFilters', label: 'Show in search filters' },
  { key: 'showInAssetSummary', label: "Show in the asset's summary" },
  { key: 'hideInAssetSummaryWhenEmpty', label: "Leave out of the asset's summary when it has no value" },
  { key: 'showAsAssetBadge', label: 'Show as a badge on the asset' },
  { key: 'showInColumnsTable', label: "Show in the columns table of a dataset's schema" },
  { key: 'isHidden', label: 'Hidden: not shown to people browsing assets' },
];

export type Settings = Record<SettingKey, boolean>;

export const NO_SETTINGS: Settings = Object.fromEntries(SETTINGS.map((s) => [s.key, false])) as Settings;

/** One remap of a migration: each stored `from` becomes `to`; a retired allowed value's row is offered by the form. */
export interface RemapRow {
  readonly key: number;
  from: string;
  to: string;
  /** An allowed value the edit removes (its `from` is fixed). */
  readonly retired: boolean;
}

/** How the values an edit breaks are kept instead of a new version (docs/contract.md §14, "Definitions evolve"). */
export interface MigrationForm {
  remap: RemapRow[];
  convert: boolean;
  dropInvalid: boolean;
}

export interface FormState {
  qualifiedName: string;
  displayName: string;
  description: string;
  valueType: string;
  cardinality: PropertyCardinality;
  entityTypes: string[];
  allowed: AllowedRow[];
  allowedTypes: string[];
  immutable: boolean;
  settings: Settings;
  version: string;
  /** Chosen when an edit breaks stored values: the migration that keeps them; null: none. */
  migration: MigrationForm | null;
}

export interface FieldError {
  /** The form control at fault (its id without the `pf-` prefix). */
  readonly control: string;
  readonly message: string;
}

let rowKeys = 0;
export const newRow = (value = '', description = ''): AllowedRow => ({ key: ++rowKeys, value, description });

export const EMPTY_FORM: FormState = {
  qualifiedName: '',
  displayName: '',
  description: '',
  valueType: 'string',
  cardinality: 'SINGLE',
  entityTypes: [ENTITY.dataset.name],
  allowed: [],
  allowedTypes: [],
  immutable: false,
  settings: NO_SETTINGS,
  version: '',
  migration: null,
};


export function formOf(d: DefinitionFragment, settings: Partial<Settings> | null | undefined): FormState {
  return {
    qualifiedName: d.qualifiedName,
    displayName: d.displayName ?? '',
    description: d.description ?? '',
    valueType: valueTypeOfStd(d.valueType.info.type)?.id ?? VALUE_TYPES[0].id,
    cardinality: d.cardinality ?? 'SINGLE',
    entityTypes: d.entityTypes.map((t) => entityTypeName(t.info.type)),
    allowed: (d.allowedValues ?? []).map((a) => newRow(valueText(a.value), a.description ?? '')),
    allowedTypes: (d.typeQualifier?.allowedTypes ?? []).map((t) => entityTypeName(t.info.type)),
    immutable: d.immutable,
    settings: { ...NO_SETTINGS, ...Object.fromEntries(SETTINGS.map((x) => [x.key, settings?.[x.key] ?? false])) },
    version: '',
    migration: null,
  };
}

const isNumber = (f: FormState) => f.valueType === 'number';

/** The propertyDefinition aspect the form stands for, as the server would receive it. */
export function aspectOf(f: FormState): Record<string, unknown> {
  const aspect: Record<string, unknown> = {
    qualifiedName: f.qualifiedName.trim(),
    valueType: `urn:li:dataType:${f.valueType}`,
    entityTypes: f.entityTypes.map((t) => `urn:li:entityType:${t}`),
    cardinality: f.cardinality,
    immutable: f.immutable,
  };
  if (f.displayName.trim()) aspect.displayName = f.displayName.trim();
  if (f.description.trim()) aspect.description = f.description.trim();
  if (f.version.trim()) aspect.version = f.version.trim();
  if (f.valueType === 'urn' && f.allowedTypes.length) aspect.typeQualifier = { allowedTypes: f.allowedTypes.map((t) => `urn:li:entityType:${t}`) };
  if (f.allowed.length) {
    aspect.allowedValues = f.allowed.map((r) => ({
      value: isNumber(f) ? { double: r.value.trim() === '' ? null : Number(r.value) } : { string: r.value },
      ...(r.description.trim() ? { description: r.description.trim() } : {}),
    }));
  }
  return aspect;
}

/** Which control a server field name points at. */
function controlOf(field: string | undefined): string {
  const allowed = /^allowedValues\[(\d+)\]/.exec(field ?? '');
  if (allowed) return `allowed-${allowed[1]}-value`;
  if (field?.startsWith('typeQualifier')) return 'allowedTypes';
  return field ?? 'form';
}

/** The first problem the server's rules find in the form, or null. */
export function checkForm(f: FormState): FieldError | null {
  const id = f.qualifiedName.trim();
  if (!id) return { control: 'qualifiedName', message: 'qualifiedName is required' };
  const urn = tryParseUrn(`urn:li:structuredProperty:${id}`);
  if (!urn.ok) return { control: 'qualifiedName', message: `Invalid qualified name: ${urn.reason}` };
  const empty = f.allowed.findIndex((r) => r.value.trim() === '');
  if (empty >= 0) return { control: `allowed-${empty}-value`, message: `allowedValues[${empty}].value is empty: enter a value or remove the row` };
  try {
    // Only whether the rules pass matters here: the server writes the URNs in its own namespace.
    parsePropertyDefinition(aspectOf(f), id, DEFAULT_URN_NAMESPACE);
    return null;
  } catch (err) {
    if (err instanceof ServiceError) return { control: controlOf(err.field), message: err.message };
    throw err;
  }
}

function allowedInputs(f: FormState): AllowedValueInput[] | null {
  if (!f.allowed.length) return null;
  return f.allowed.map((r) => ({
    ...(isNumber(f) ? { numberValue: Number(r.value) } : { stringValue: r.value }),
    ...(r.description.trim() ? { description: r.description.trim() } : {}),
  }));
}

export function createInput(f: FormState): CreateStructuredPropertyInput {
  const id = f.qualifiedName.trim();
  return {
    id,
    qualifiedName: id,
    displayName: f.displayName.trim() || null,
    description: f.description.trim() || null,
    valueType: `urn:li:dataType:${f.valueType}`,
    cardinality: f.cardinality,
    entityTypes: f.entityTypes.map((t) => `urn:li:entityType:${t}`),
    allowedValues: allowedInputs(f),
    immutable: f.immutable,
    typeQualifier: f.valueType === 'urn' && f.allowedTypes.length ? { allowedTypes: f.allowedTypes.map((t) => `urn:li:entityType:${t}`) } : null,
    settings: { ...f.settings },
  };
}

/** The value as GraphQL takes it, typed by the value type it is read under. */
function valueInput(valueType: string, text: string): PropertyValueInput {
  return valueType === 'number' ? { numberValue: Number(text) } : { stringValue: text };
}

const sameValue = (valueType: string, a: string, b: string) => (valueType === 'number' ? Number(a) === Number(b) : a === b);

/** The allowed values of the stored definition that the edited one no longer allows. */
export function retiredValues(stored: FormState, edited: FormState): string[] {
  // No allowed values left means any value of the type is allowed: nothing is retired.
  if (stored.allowed.length === 0 || edited.allowed.length === 0) return [];
  const type = stored.valueType === edited.valueType ? edited.valueType : 'string';
  return stored.allowed.map((r) => r.value).filter((v) => !edited.allowed.some((r) => sameValue(type, r.value, v)));
}

/** The migration a person starts from: a remap row per retired allowed value, a conversion when the value type changes. */
export function startMigration(stored: FormState, edited: FormState): MigrationForm {
  return {
    remap: retiredValues(stored, edited).map((from) => ({ key: newRow().key, from, to: '', retired: true })),
    convert: stored.valueType !== edited.valueType,
    dropInvalid: false,
  };
}

export const newRemap = (): RemapRow => ({ key: newRow().key, from: '', to: '', retired: false });

/** The migration input: `from` read as the stored definition's type, `to` as the edited one's; rows not filled in are left out. */
export function migrationInput(storedValueType: string, f: FormState): StructuredPropertyMigrationInput | null {
  if (!f.migration) return null;
  const remap = f.migration.remap.filter((r) => r.from.trim() !== '' && r.to.trim() !== '').map((r) => ({ from: valueInput(storedValueType, r.from.trim()), to: valueInput(f.valueType, r.to.trim()) }));
  return { ...(remap.length ? { remap } : {}), ...(f.migration.convert ? { convert: true } : {}), ...(f.migration.dropInvalid ? { dropInvalid: true } : {}) };
}

/**
 * The whole definition the form stands for, naming the definition's version as read
 * (`expectedVersion`: a change saved since is told, not overwritten) and the migration chosen.
 */
export function replaceInput(urn: string, f: FormState, read: { version?: string | null; valueType?: string } = {}): ReplaceStructuredPropertyDefinitionInput {
  const { id: _id, qualifiedName: _qualifiedName, ...rest } = createInput(f);
  const migration = migrationInput(read.valueType ?? f.valueType, f);
  return { ...rest, urn, version: f.version.trim() || null, ...(read.version ? { expectedVersion: read.version } : {}), ...(migration ? { migration } : {}) };
}

/**
 * The definition's fields a stale save's refusal names (docs/contract.md §14, "Stale
 * writes": per field for aspects other than values), with the form's controls each
 * stands for; fields the form does not edit (stamps, DataHub's extras) are not offered.
 */
export const DEFINITION_FIELDS: ReadonlyArray<{ readonly field: string; readonly label: string; readonly keys: ReadonlyArray<keyof FormState> }> = [
  { field: 'displayName', label: 'Display name', keys: ['displayName'] },
  { field: 'description', label: 'Description', keys: ['description'] },
  { field: 'valueType', label: 'Value type', keys: ['valueType'] },
  { field: 'cardinality', label: 'Cardinality', keys: ['cardinality'] },
  { field: 'entityTypes', label: 'Entity types', keys: ['entityTypes'] },
  { field: 'allowedValues', label: 'Allowed values', keys: ['allowed'] },
  { field: 'typeQualifier', label: 'Values may name', keys: ['allowedTypes'] },
  { field: 'immutable', label: 'Immutable values', keys: ['immutable'] },
  { field: 'version', label: 'Version', keys: [] },
];

const tail = (urn: string) => urn.slice(urn.lastIndexOf(':') + 1).replace(/^(svc|datahub)\./, '');

/** A field of a definition aspect as people read it. */
export function definitionFieldText(field: string, value: unknown): string {
  if (value === null || value === undefined || value === '') return 'none';
  if (field === 'allowedValues' && Array.isArray(value)) {
    return value.map((a: { value?: { string?: string; double?: number | null } }) => String(a?.value?.string ?? a?.value?.double ?? '')).join(', ') || 'none';
  }
  if (field === 'entityTypes' && Array.isArray(value)) return value.map((u) => tail(String(u))).join(', ');
  if (field === 'valueType') return tail(String(value));
  if (field === 'typeQualifier') return ((value as { allowedTypes?: string[] }).allowedTypes ?? []).map(tail).join(', ') || 'any';
  if (field === 'cardinality') return value === 'MULTIPLE' ? 'many values' : 'one value';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The form with the fields named taken from another (the definition stored now), for a merge field by field. */
export function withFieldsOf(mine: FormState, theirs: FormState, fields: readonly string[]): FormState {
  const merged: FormState = { ...mine };
  for (const f of DEFINITION_FIELDS.filter((d) => fields.includes(d.field))) for (const key of f.keys) (merged as unknown as Record<string, unknown>)[key] = theirs[key];
  return merged;
}
