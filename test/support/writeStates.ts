/** Plain write states for the pure write rules (domain/writes/): what the loader would have found. */
import type { PropertyDefinition } from '../../src/domain/propertyDefinition.js';
import type { TypedValue } from '../../src/domain/typedValue.js';
import type { UrnNamespace } from '../../src/domain/typeUrns.js';
import { parseUrn, type Urn } from '../../src/domain/urn.js';
import type { AspectState } from '../../src/domain/writes/aspectRules.js';
import type { CurrentAspect, EntityState, HeldValue, PropertyRecord, RegistryState } from '../../src/domain/writes/writeState.js';

export const DATASET = parseUrn('urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)');
export const propertyUrnOf = (name: string): string => `urn:li:structuredProperty:${name}`;

export function definitionOf(name: string, extra: Partial<PropertyDefinition> = {}): PropertyDefinition {
  return { qualifiedName: name, valueType: 'urn:li:dataType:svc.string', entityTypes: ['urn:li:entityType:svc.dataset'], ...extra };
}

/** A live property; generation 1 unless said. */
export function record(name: string, options: { definition?: Partial<PropertyDefinition>; generation?: bigint; removed?: boolean; entityVersion?: bigint } = {}): PropertyRecord {
  return {
    urn: propertyUrnOf(name),
    generation: options.generation ?? 1n,
    removed: options.removed ?? false,
    definition: definitionOf(name, options.definition),
    entityVersion: options.entityVersion ?? 1n,
    migration: null,
  };
}

/** A value row held under `generation` of a property whose current state is `property` (undefined: gone). */
export function held(name: string, values: TypedValue[], property: PropertyRecord | undefined, generation = property?.generation ?? 1n): HeldValue {
  return { propertyUrn: propertyUrnOf(name), generation, values, currentGeneration: property?.generation ?? null, removed: property?.removed ?? false };
}

export function registryOf(records: readonly PropertyRecord[], owners: Record<string, string> = {}): RegistryState {
  return { properties: new Map(records.map((r) => [r.urn, r])), searchFieldOwners: new Map(Object.entries(owners)) };
}

export function aspect(metadata: unknown, revision = 1): CurrentAspect {
  return { metadata, systemMetadata: { version: String(revision), runId: 'earlier' } };
}

export function entity(options: Partial<Omit<EntityState, 'aspects'>> & { aspects?: Record<string, CurrentAspect> } = {}): EntityState {
  const { aspects, ...rest } = options;
  return { existence: 'existed', version: 3n, parent: null, values: [], ...rest, aspects: new Map(Object.entries(aspects ?? {})) };
}

/** The state one aspect's decision sees. */
export function aspectState(options: { urn?: Urn; stored?: unknown; aspects?: Record<string, CurrentAspect>; values?: HeldValue[]; registry?: RegistryState; urnNamespace?: UrnNamespace } = {}): AspectState {
  return {
    urn: options.urn ?? DATASET,
    urnNamespace: options.urnNamespace ?? 'svc',
    stored: options.stored,
    aspects: new Map(Object.entries(options.aspects ?? {})),
    values: options.values ?? [],
    ...(options.registry ?? registryOf([])),
  };
}
