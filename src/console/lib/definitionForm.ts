/**
 * The property form's state, checked with the server's own definition rules
 * (src/domain/propertyDefinition.ts) before anything is sent, and turned into the
 * GraphQL inputs.
 */
import { ENTITY } from '../../domain/registry/entityTypes.js';
import { VALUE_TYPES, valueTypeOfStd } from '../../domain/registry/valueTypes.js';
import { ServiceError } from '../../domain/errors.js';
import { parsePropertyDefinition } from '../../domain/propertyDefinition.js';
import { tryParseUrn } from '../../domain/urn.js';
import type { AllowedValueInput, CreateStructuredPropertyInput, DefinitionFragment, PropertyCardinality, ReplaceStructuredPropertyDefinitionInput, SettingsFragment } from '../generated/graphql';
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
  };
}

const isNumber = (f: FormState) => f.valueType === 'number';

/** The propertyDefinition aspect the form stands for, as the server would receive it. */
function aspectOf(f: FormState): Record<string, unknown> {
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
    parsePropertyDefinition(aspectOf(f), id);
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

export function replaceInput(urn: string, f: FormState): ReplaceStructuredPropertyDefinitionInput {
  const { id: _id, qualifiedName: _qualifiedName, ...rest } = createInput(f);
  return { ...rest, urn, version: f.version.trim() || null };
}
