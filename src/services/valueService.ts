/**
 * Values on an asset as GraphQL sets them (docs/contract.md §3): upsert merges (named properties
 * are set or replaced, others kept) and remove drops the named ones. Both compute the
 * new structuredProperties aspect from what readers currently see and write it through
 * the same pipeline as REST, so validation is identical.
 */
import { ASPECT } from '../domain/aspects/index.js';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import type { PropertyValueAssignment, StructuredPropertiesAspect } from '../domain/structuredProperties.js';
import type { Caller, WriteOptions } from './caller.js';
import type { EntityService } from './entityService.js';
import { typedValueOfInput } from './propertyService.js';
import { NO_CHANGE } from '../domain/writes/entityWrite.js';
import { entityPlan } from '../domain/writes/plan.js';
import { parseUrn } from '../domain/urn.js';
import type { WriteService } from './writes/writeService.js';
import { onlyEntity } from './writes/writeService.js';
import type { Written } from './writeReceipt.js';

export interface PropertyValuesInput {
  structuredPropertyUrn: string;
  values: ReadonlyArray<{ stringValue?: string | null; numberValue?: number | null }>;
}

export interface AssetProperties {
  readonly associatedUrn: string;
  readonly properties: readonly PropertyValueAssignment[];
  /** The stored version of the asset's structuredProperties after the write (what the next write names as expected). */
  readonly aspectVersion?: string | null;
}

function entriesOf(aspect: unknown): PropertyValueAssignment[] {
  return ((aspect as StructuredPropertiesAspect | undefined)?.properties ?? []).map((p) => ({ ...p }));
}

/** A value write that names the version it read (the asset's structuredProperties revision): refused as stale when it moved on. */
export interface ValueWriteOptions extends WriteOptions {
  readonly expectedVersion?: string | null;
}

export interface ValueService {
  /** Sets the values of the properties named, keeping the asset's other properties. */
  upsert(caller: Caller, assetUrn: string, params: readonly PropertyValuesInput[], options?: ValueWriteOptions): Promise<Written<AssetProperties>>;
  /** Removes the properties named from the asset. */
  remove(caller: Caller, assetUrn: string, propertyUrns: readonly string[], options?: ValueWriteOptions): Promise<Written<AssetProperties>>;
  /** What readers see of an asset's structured properties (empty when it has none). */
  get(caller: Caller, assetUrn: string): Promise<AssetProperties | undefined>;
}

export class DefaultValueService implements ValueService {
  constructor(private readonly deps: { entities: EntityService; writes: WriteService }) {}

  async upsert(caller: Caller, assetUrn: string, params: readonly PropertyValuesInput[], options: ValueWriteOptions = {}): Promise<Written<AssetProperties>> {
    const assignments = params.map((p, i) => ({
      propertyUrn: p.structuredPropertyUrn,
      values: p.values.map((v, j) => typedValueOfInput(v, `structuredPropertyInputParams[${i}].values[${j}]`)),
    }));
    const named = new Set<string>();
    for (const a of assignments) {
      if (named.has(a.propertyUrn)) throw new ValidationError(`Property ${a.propertyUrn} is listed more than once`, 'structuredPropertyUrn', { propertyUrn: a.propertyUrn });
      named.add(a.propertyUrn);
    }
    return this.write(caller, assetUrn, (current) => {
      // A property named is set: its entries (one per attribution source) become this one, where the first stood.
      let entries = entriesOf(current);
      for (const a of assignments) {
        const at = entries.findIndex((e) => e.propertyUrn === a.propertyUrn);
        entries = entries.filter((e) => e.propertyUrn !== a.propertyUrn);
        entries.splice(at < 0 ? entries.length : at, 0, a);
      }
      return { properties: entries };
    }, options);
  }

  async remove(caller: Caller, assetUrn: string, propertyUrns: readonly string[], options: ValueWriteOptions = {}): Promise<Written<AssetProperties>> {
    const drop = new Set(propertyUrns);
    return this.write(caller, assetUrn, (current) => {
      const entries = entriesOf(current);
      const kept = entries.filter((e) => !drop.has(e.propertyUrn));
      return current === undefined || kept.length === entries.length ? NO_CHANGE : { properties: kept };
    }, options);
  }

  /** The asset's structuredProperties computed from what readers see, as one plan. */
  private async write(caller: Caller, assetUrn: string, compute: (current: unknown) => unknown, options: ValueWriteOptions): Promise<Written<AssetProperties>> {
    const { expectedVersion, ...writeOptions } = options;
    const change = { op: 'compute' as const, aspect: ASPECT.structuredProperties, compute, ...(expectedVersion != null ? { ifVersionMatch: expectedVersion } : {}) };
    const written = await this.deps.writes.submit(caller, entityPlan(parseUrn(assetUrn), [change]), writeOptions);
    const entity = onlyEntity(written.result);
    const version = entity.results[0]?.systemMetadata?.version;
    return {
      result: { associatedUrn: assetUrn, properties: entriesOf(entity.results[0]?.value), aspectVersion: typeof version === 'string' || typeof version === 'number' ? String(version) : null },
      receipt: written.receipt,
    };
  }

  async get(caller: Caller, assetUrn: string): Promise<AssetProperties | undefined> {
    const view = await this.deps.entities.getEntity(caller, assetUrn, { aspects: [ASPECT.structuredProperties] }).catch((err) => {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    });
    if (!view) return undefined;
    return { associatedUrn: assetUrn, properties: entriesOf(view.aspects.get(ASPECT.structuredProperties)?.value) };
  }
}
