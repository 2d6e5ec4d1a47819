/**
 * Structured property definitions as GraphQL presents them: create (create-only, with
 * defaults), append-only update, hard delete, and reads. Every write is an ordinary
 * propertyDefinition aspect write through the same pipeline REST uses, so the rules
 * are the same on every interface.
 */
import { ASPECT } from '../domain/aspects/index.js';
import { ENTITY } from '../domain/registry/entityTypes.js';
import { randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import type { AllowedValue, Cardinality, PropertyDefinition } from '../domain/propertyDefinition.js';
import type { TypedValue } from '../domain/typedValue.js';
import { parseUrn, type Urn } from '../domain/urn.js';
import { aspectAudits, aspectRevisions, type AuditStamps } from '../store/aspects.js';
import type { Db } from '../store/database.js';
import { findProperties } from '../store/propertyRegistry.js';
import type { Caller, WriteOptions } from './caller.js';
import type { EntityService } from './entityService.js';
import { entityDeletePlan, entityPlan, type ComputeChange, type SetChange } from '../domain/writes/plan.js';
import type { MigrationEffect, MigrationRules } from '../domain/valueMigration.js';
import type { ValueImpact } from '../domain/valueImpact.js';
import { onlyEntity, type WriteService } from './writes/writeService.js';
import type { Written } from './writeReceipt.js';

export type { AuditStamps };

export interface AllowedValueInput {
  stringValue?: string | null;
  numberValue?: number | null;
  description?: string | null;
}

export interface CreatePropertyInput {
  id?: string | null;
  qualifiedName?: string | null;
  displayName?: string | null;
  description?: string | null;
  immutable?: boolean | null;
  valueType: string;
  typeQualifier?: { allowedTypes?: readonly string[] | null } | null;
  allowedValues?: readonly AllowedValueInput[] | null;
  cardinality?: Cardinality | null;
  entityTypes: readonly string[];
  settings?: PropertySettingsInput | null;
}

/** DataHub's structuredPropertySettings flags; a flag absent from an input keeps its value. */
export interface PropertySettingsInput {
  isHidden?: boolean | null;
  showInSearchFilters?: boolean | null;
  showInAssetSummary?: boolean | null;
  showAsAssetBadge?: boolean | null;
  showInColumnsTable?: boolean | null;
  hideInAssetSummaryWhenEmpty?: boolean | null;
}

export interface ReplacePropertyInput {
  urn: string;
  displayName?: string | null;
  description?: string | null;
  immutable?: boolean | null;
  valueType: string;
  typeQualifier?: { allowedTypes?: readonly string[] | null } | null;
  allowedValues?: readonly AllowedValueInput[] | null;
  cardinality?: Cardinality | null;
  entityTypes: readonly string[];
  version?: string | null;
  settings?: PropertySettingsInput | null;
  /** The definition's version as read (its revision): a write over a later one is refused as stale. */
  expectedVersion?: string | null;
  /** Rules that keep the stored values a breaking change would break (instead of a new version). */
  migration?: MigrationRules | null;
}

export interface DefinitionRevision {
  readonly revision: number;
  readonly definition: PropertyDefinition;
  readonly written: { readonly time: number; readonly actor: string };
}

export interface UpdatePropertyInput {
  urn: string;
  displayName?: string | null;
  description?: string | null;
  immutable?: boolean | null;
  typeQualifier?: { newAllowedTypes?: readonly string[] | null } | null;
  newAllowedValues?: readonly AllowedValueInput[] | null;
  setCardinalityAsMultiple?: boolean | null;
  newEntityTypes?: readonly string[] | null;
  settings?: PropertySettingsInput | null;
  /** The definition's version as read (its revision): a write over a later one is refused as stale. */
  expectedVersion?: string | null;
}

export interface PropertyState {
  readonly urn: string;
  readonly definition: PropertyDefinition;
  readonly removed: boolean;
  /** A migration of its values is in progress. */
  readonly migrating: boolean;
}

/** `{stringValue}` / `{numberValue}` (exactly one) → a typed value object. */
export function typedValueOfInput(input: { stringValue?: string | null; numberValue?: number | null }, field: string): TypedValue {
  const hasString = input.stringValue !== undefined && input.stringValue !== null;
  const hasNumber = input.numberValue !== undefined && input.numberValue !== null;
  if (hasString === hasNumber) throw new ValidationError(`${field} must have exactly one of stringValue or numberValue`, field);
  return hasString ? { string: input.stringValue! } : { double: input.numberValue! };
}

function allowedValuesOf(inputs: readonly AllowedValueInput[], field: string): AllowedValue[] {
  return inputs.map((a, i) => ({
    value: typedValueOfInput(a, `${field}[${i}]`),
    ...(a.description !== undefined && a.description !== null ? { description: a.description } : {}),
  }));
}

export interface PropertyService {
  /** A property's definition and whether it is soft deleted; undefined when there is none. */
  get(caller: Caller, urn: string): Promise<PropertyState | undefined>;
  /** get for many properties in one read (GraphQL loaders); absent ones are left out. */
  getMany(urns: readonly string[]): Promise<Map<string, PropertyState>>;
  /** Who created and last changed each definition, and when (one read for all; properties without one are left out). */
  audits(urns: readonly string[]): Promise<Map<string, AuditStamps>>;
  /** Creates a property; refuses when it already exists. Returns its urn. */
  create(caller: Caller, input: CreatePropertyInput, options?: WriteOptions): Promise<Written<string>>;
  /**
   * Replaces the whole definition (what is absent is removed). The write path checks
   * compatibility: a breaking change needs a greater version (docs/contract.md §2).
   */
  replace(caller: Caller, input: ReplacePropertyInput, options?: WriteOptions): Promise<Written<string>>;
  /** Soft delete (docs/contract.md §5): the status aspect's removed flag; the definition and values stay. */
  softDelete(caller: Caller, urn: string, options?: WriteOptions): Promise<Written<string>>;
  /** Undoes a soft delete. */
  restore(caller: Caller, urn: string, options?: WriteOptions): Promise<Written<string>>;
  /** The definition after each write, newest first (at most `limit`). */
  history(caller: Caller, urn: string, limit?: number): Promise<DefinitionRevision[]>;
  /** Append-only update: text fields, new allowed values, new entity types, SINGLE→MULTIPLE. */
  update(caller: Caller, input: UpdatePropertyInput, options?: WriteOptions): Promise<Written<string>>;
  /** Hard delete; true when done (also when the property did not exist). */
  delete(caller: Caller, urn: string, options?: WriteOptions): Promise<Written<boolean>>;
  /**
   * What replacing the definition would do, decided and written nothing: what a new
   * version would drop, the breaking changes and their holders, what a migration would do.
   */
  previewReplace(caller: Caller, input: ReplacePropertyInput): Promise<DefinitionPreview>;
}

export interface DefinitionPreview {
  readonly impact: ValueImpact;
  readonly breaking: ReadonlyArray<{ readonly change: string; readonly kind: string; readonly holders: number | null }>;
  readonly migration: MigrationEffect | null;
}

export class DefaultPropertyService implements PropertyService {
  constructor(private readonly deps: { db: Db; entities: EntityService; writes: WriteService }) {}

  async get(_caller: Caller, urn: string): Promise<PropertyState | undefined> {
    return (await this.getMany([urn])).get(urn);
  }

  async getMany(urns: readonly string[]): Promise<Map<string, PropertyState>> {
    const found = await findProperties(this.deps.db, urns);
    return new Map([...found].map(([urn, r]) => [urn, { urn, definition: r.definition as unknown as PropertyDefinition, removed: r.removed, migrating: r.migration !== null }]));
  }

  audits(urns: readonly string[]): Promise<Map<string, AuditStamps>> {
    return aspectAudits(this.deps.db, urns, ASPECT.propertyDefinition);
  }

  async create(caller: Caller, input: CreatePropertyInput, options: WriteOptions = {}): Promise<Written<string>> {
    const id = input.id ?? input.qualifiedName ?? randomUUID();
    const qualifiedName = input.qualifiedName ?? id;
    if (qualifiedName !== id) throw new ValidationError(`id ${id} and qualifiedName ${qualifiedName} must be equal`, 'qualifiedName');
    const urn = `urn:li:structuredProperty:${id}`;
    parseUrn(urn);
    const definition: Record<string, unknown> = {
      qualifiedName,
      valueType: input.valueType,
      entityTypes: input.entityTypes,
      cardinality: input.cardinality ?? 'SINGLE',
      immutable: input.immutable ?? false,
    };
    if (input.displayName != null) definition.displayName = input.displayName;
    if (input.description != null) definition.description = input.description;
    if (input.allowedValues != null) definition.allowedValues = allowedValuesOf(input.allowedValues, 'allowedValues');
    if (input.typeQualifier?.allowedTypes != null) definition.typeQualifier = { allowedTypes: input.typeQualifier.allowedTypes };
    const create: SetChange = { op: 'set', aspect: ASPECT.propertyDefinition, value: definition, createOnly: true };
    const written = await this.deps.writes.submit(caller, entityPlan(parseUrn(urn), [create, ...settingsWrite(input.settings)]), options);
    return { result: urn, receipt: written.receipt };
  }

  async replace(caller: Caller, input: ReplacePropertyInput, options: WriteOptions = {}): Promise<Written<string>> {
    const { urn, changes } = this.replaceChanges(input);
    const written = await this.deps.writes.submit(caller, entityPlan(urn, changes), options);
    return { result: urn.value, receipt: written.receipt };
  }

  async previewReplace(caller: Caller, input: ReplacePropertyInput): Promise<DefinitionPreview> {
    const { urn, changes } = this.replaceChanges(input);
    const { impact, outcome } = await this.deps.writes.preview(caller, entityPlan(urn, changes));
    const report = onlyEntity(outcome).reports.propertyDefinition as { breaking?: DefinitionPreview['breaking']; migration?: MigrationEffect } | undefined;
    return { impact, breaking: report?.breaking ?? [], migration: report?.migration ?? null };
  }

  /** The changes a replace makes: the whole definition (never creating the property), and the settings given. */
  private replaceChanges(input: ReplacePropertyInput): { urn: Urn; changes: ComputeChange[] } {
    const urn = propertyUrn(input.urn);
    const definition: Record<string, unknown> = {
      qualifiedName: urn.id,
      valueType: input.valueType,
      entityTypes: input.entityTypes,
      cardinality: input.cardinality ?? 'SINGLE',
      immutable: input.immutable ?? false,
    };
    if (input.displayName != null) definition.displayName = input.displayName;
    if (input.description != null) definition.description = input.description;
    if (input.allowedValues != null && input.allowedValues.length > 0) definition.allowedValues = allowedValuesOf(input.allowedValues, 'allowedValues');
    if (input.typeQualifier?.allowedTypes != null && input.typeQualifier.allowedTypes.length > 0) {
      definition.typeQualifier = { allowedTypes: input.typeQualifier.allowedTypes };
    }
    if (input.version != null) definition.version = input.version;
    const replace: ComputeChange = {
      op: 'compute',
      aspect: ASPECT.propertyDefinition,
      compute: (current) => {
        if (current === undefined) throw new NotFoundError(`Structured property ${urn.value} does not exist`);
        return definition;
      },
      ...(input.expectedVersion != null ? { ifVersionMatch: input.expectedVersion } : {}),
      ...(input.migration ? { directive: { migration: input.migration } } : {}),
    };
    return { urn, changes: [replace, ...settingsWrite(input.settings)] };
  }

  async softDelete(caller: Caller, urn: string, options: WriteOptions = {}): Promise<Written<string>> {
    return this.setRemoved(caller, urn, true, options);
  }

  async restore(caller: Caller, urn: string, options: WriteOptions = {}): Promise<Written<string>> {
    return this.setRemoved(caller, urn, false, options);
  }

  async history(_caller: Caller, urn: string, limit = 100): Promise<DefinitionRevision[]> {
    const revisions = await aspectRevisions(this.deps.db, urn, ASPECT.propertyDefinition, limit);
    return revisions.map((r) => ({ revision: r.revision, definition: r.metadata as PropertyDefinition, written: { time: r.createdOn.getTime(), actor: r.createdBy } }));
  }

  private async setRemoved(caller: Caller, urn: string, removed: boolean, options: WriteOptions): Promise<Written<string>> {
    const parsed = propertyUrn(urn);
    const written = await this.deps.writes.submit(caller, entityPlan(parsed, [{ op: 'set', aspect: ASPECT.status, value: { removed } }]), options);
    return { result: parsed.value, receipt: written.receipt };
  }

  async update(caller: Caller, input: UpdatePropertyInput, options: WriteOptions = {}): Promise<Written<string>> {
    const urn = propertyUrn(input.urn);
    const update: ComputeChange = {
      op: 'compute',
      aspect: ASPECT.propertyDefinition,
      ...(input.expectedVersion != null ? { ifVersionMatch: input.expectedVersion } : {}),
      compute: (current) => {
        if (current === undefined) throw new NotFoundError(`Structured property ${urn.value} does not exist`);
        const def = { ...(current as PropertyDefinition) } as PropertyDefinition;
        if (input.displayName != null) def.displayName = input.displayName;
        if (input.description != null) def.description = input.description;
        if (input.immutable != null) def.immutable = input.immutable;
        if (input.setCardinalityAsMultiple) def.cardinality = 'MULTIPLE';
        if (input.newAllowedValues?.length) {
          def.allowedValues = [...(def.allowedValues ?? []), ...allowedValuesOf(input.newAllowedValues, 'newAllowedValues')];
        }
        if (input.newEntityTypes?.length) def.entityTypes = [...def.entityTypes, ...input.newEntityTypes];
        if (input.typeQualifier?.newAllowedTypes?.length) {
          def.typeQualifier = { allowedTypes: [...(def.typeQualifier?.allowedTypes ?? []), ...input.typeQualifier.newAllowedTypes] };
        }
        return def;
      },
    };
    const written = await this.deps.writes.submit(caller, entityPlan(urn, [update, ...settingsWrite(input.settings)]), options);
    return { result: urn.value, receipt: written.receipt };
  }

  async delete(caller: Caller, urn: string, options: WriteOptions = {}): Promise<Written<boolean>> {
    const parsed = parseUrn(urn);
    if (parsed.entityType !== ENTITY.structuredProperty) throw new ValidationError(`${urn} is not a structured property urn`, 'urn');
    return { result: true, receipt: (await this.deps.writes.submit(caller, entityDeletePlan(parsed), options)).receipt };
  }
}

function propertyUrn(value: string): Urn {
  const urn = parseUrn(value);
  if (urn.entityType !== ENTITY.structuredProperty) throw new ValidationError(`${value} is not a structured property urn`, 'urn');
  return urn;
}

const SETTING_FLAGS = ['isHidden', 'showInSearchFilters', 'showInAssetSummary', 'showAsAssetBadge', 'showInColumnsTable', 'hideInAssetSummaryWhenEmpty'] as const;

/** The structuredPropertySettings write for the flags given (none when no flag is given). */
function settingsWrite(input: PropertySettingsInput | null | undefined): ComputeChange[] {
  const given = SETTING_FLAGS.filter((flag) => input?.[flag] !== undefined && input?.[flag] !== null);
  if (given.length === 0) return [];
  return [
    {
      op: 'compute',
      aspect: ASPECT.structuredPropertySettings,
      compute: (current) => {
        const next: Record<string, unknown> = { ...((current as Record<string, unknown> | undefined) ?? {}) };
        for (const flag of given) next[flag] = input![flag];
        return next;
      },
    },
  ];
}
