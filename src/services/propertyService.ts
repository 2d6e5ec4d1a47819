/**
 * Structured property definitions as GraphQL presents them: create (create-only, with
 * defaults), append-only update, hard delete, and reads. Every write is an ordinary
 * propertyDefinition aspect write through the same pipeline REST uses, so the rules
 * are the same on every interface.
 */
import { randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import type { AllowedValue, Cardinality, PropertyDefinition } from '../domain/propertyDefinition.js';
import type { TypedValue } from '../domain/typedValue.js';
import { parseUrn } from '../domain/urn.js';
import { aspectAudit, type AuditStamps } from '../store/aspects.js';
import type { Db } from '../store/database.js';
import { findProperties } from '../store/propertyRegistry.js';
import type { Caller, WriteOptions } from './caller.js';
import type { EntityService } from './entityService.js';

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
}

export interface PropertyState {
  readonly urn: string;
  readonly definition: PropertyDefinition;
  readonly removed: boolean;
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

export class PropertyService {
  constructor(private readonly deps: { db: Db; entities: EntityService }) {}

  async get(_caller: Caller, urn: string): Promise<PropertyState | undefined> {
    return (await this.getMany([urn])).get(urn);
  }

  async getMany(urns: readonly string[]): Promise<Map<string, PropertyState>> {
    const found = await findProperties(this.deps.db, urns);
    return new Map([...found].map(([urn, r]) => [urn, { urn, definition: r.definition as PropertyDefinition, removed: r.removed }]));
  }

  async audit(urn: string): Promise<AuditStamps | undefined> {
    return aspectAudit(this.deps.db, urn, 'propertyDefinition');
  }

  /** Creates a property; refuses when it already exists. Returns its urn. */
  async create(caller: Caller, input: CreatePropertyInput, options: WriteOptions = {}): Promise<string> {
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
    await this.deps.entities.setAspect(caller, urn, 'propertyDefinition', { value: definition }, { ...options, createOnly: true });
    return urn;
  }

  /** Append-only update: text fields, new allowed values, new entity types, SINGLE→MULTIPLE. */
  async update(caller: Caller, input: UpdatePropertyInput, options: WriteOptions = {}): Promise<string> {
    const urn = parseUrn(input.urn);
    if (urn.entityType.name !== 'structuredProperty') throw new ValidationError(`${input.urn} is not a structured property urn`, 'urn');
    await this.deps.entities.updateAspect(
      caller,
      urn.value,
      'propertyDefinition',
      (current) => {
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
      options,
    );
    return urn.value;
  }

  /** Hard delete; true when done (also when the property did not exist). */
  async delete(caller: Caller, urn: string, options: WriteOptions = {}): Promise<boolean> {
    const parsed = parseUrn(urn);
    if (parsed.entityType.name !== 'structuredProperty') throw new ValidationError(`${urn} is not a structured property urn`, 'urn');
    await this.deps.entities.deleteEntity(caller, urn, options);
    return true;
  }
}
