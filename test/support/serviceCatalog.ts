/**
 * Arrange steps for the service tests (test/services): properties, datasets and values
 * written through a runtime's services in process, as an admin, the way the REST
 * fixtures (fixtures.ts) write them over HTTP.
 */
import { ENTITY } from '../../src/domain/registry/entityTypes.js';
import type { Caller } from '../../src/services/caller.js';
import type { JobListing } from '../../src/services/jobs/jobService.js';
import { ADMIN, type TestRuntime } from './runtime.js';
import { waitFor } from './waitFor.js';
import { writesOf } from './writes.js';

export const propertyUrn = (qualifiedName: string): string => `urn:li:structuredProperty:${qualifiedName}`;
export const datasetUrn = (name: string, platform = 'hive', origin = 'PROD'): string => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},${origin})`;
export const fieldUrn = (dataset: string, path: string): string => `urn:li:schemaField:(${dataset},${path})`;

export interface DefinitionInput {
  /** A short value type (`string`, `number`, `date`, `urn`, `rich_text`). */
  valueType?: string;
  cardinality?: 'SINGLE' | 'MULTIPLE';
  /** Short entity type names (`dataset`). */
  entityTypes?: string[];
  allowedValues?: Array<{ value: { double: number } | { string: string }; description?: string }>;
  version?: string;
  immutable?: boolean;
  [field: string]: unknown;
}

/** The propertyDefinition aspect for a qualified name, with full type URNs. */
export function definitionOf(qualifiedName: string, def: DefinitionInput = {}): Record<string, unknown> {
  const { valueType = 'string', entityTypes = ['dataset'], ...rest } = def;
  return {
    qualifiedName,
    valueType: `urn:li:dataType:svc.${valueType}`,
    entityTypes: entityTypes.map((t) => `urn:li:entityType:svc.${t}`),
    ...rest,
  };
}

export type Values = Record<string, ReadonlyArray<string | number>>;

/** The structuredProperties aspect for values keyed by qualified name. */
export function propertiesAspect(values: Values): { properties: Array<{ propertyUrn: string; values: unknown[] }> } {
  return {
    properties: Object.entries(values).map(([name, vs]) => ({
      propertyUrn: propertyUrn(name),
      values: vs.map((v) => (typeof v === 'number' ? { double: v } : { string: v })),
    })),
  };
}

export interface ServiceCatalog {
  /** Creates or replaces a definition (an upsert of the propertyDefinition aspect); returns the property URN. */
  define(qualifiedName: string, def?: DefinitionInput): Promise<string>;
  /** Creates datasets, each with a status aspect, in one batch. */
  createDatasets(urns: readonly string[]): Promise<void>;
  /** Replaces the entity's structured properties. */
  setValues(urn: string, values: Values): Promise<void>;
  /** The structured properties readers see on the entity ([] when it has none). */
  valuesOf(urn: string): Promise<unknown[]>;
  /** Soft-deletes (or, with `removed` false, restores) a property. */
  softDelete(qualifiedName: string, removed?: boolean): Promise<void>;
}

export function serviceCatalog(runtime: TestRuntime, caller: Caller = ADMIN): ServiceCatalog {
  const { entities, properties } = runtime.services;
  const writes = writesOf(runtime.services);
  return {
    define: async (qualifiedName, def = {}) => {
      const urn = propertyUrn(qualifiedName);
      await writes.setAspect(caller, urn, 'propertyDefinition', { value: definitionOf(qualifiedName, def) });
      return urn;
    },
    createDatasets: async (urns) => {
      await writes.batchUpsert(caller, ENTITY.dataset, urns.map((urn) => ({ urn, aspects: new Map([['status', { value: { removed: false } }]]) })));
    },
    setValues: async (urn, values) => {
      await writes.setAspect(caller, urn, 'structuredProperties', { value: propertiesAspect(values) });
    },
    valuesOf: async (urn) => {
      const view = await entities.getEntity(caller, urn, { aspects: ['structuredProperties'] });
      return ((view.aspects.get('structuredProperties')?.value as { properties?: unknown[] } | undefined)?.properties ?? []) as unknown[];
    },
    softDelete: async (qualifiedName, removed = true) => {
      if (removed) await properties.softDelete(caller, propertyUrn(qualifiedName));
      else await properties.restore(caller, propertyUrn(qualifiedName));
    },
  };
}

/**
 * The error `promise` rejects with, checked to be of class `type`, for asserting its
 * `field` and message next (a service error is told by its class, never its text alone).
 */
export async function rejection<E extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  let outcome: { failed: false } | { failed: true; error: unknown };
  try {
    await promise;
    outcome = { failed: false };
  } catch (error) {
    outcome = { failed: true, error };
  }
  if (!outcome.failed) throw new Error(`expected a ${type.name}, and the call succeeded`);
  expect(outcome.error).toBeInstanceOf(type);
  return outcome.error as E;
}

/**
 * Waits until the search index has taken every committed change (the change log is
 * empty), as a client does after `X-Index-Status: pending`: on a loaded machine a
 * write's bounded wait for the index can run out before the indexer caught up.
 */
export async function indexCaughtUp(runtime: TestRuntime, timeoutMs = 120_000): Promise<void> {
  await waitFor('the search index to catch up with the change log', timeoutMs, async () => {
    const health = await runtime.health();
    return (health.changeLog as { pending?: number } | undefined)?.pending === 0 ? true : undefined;
  }, 25);
}

/** Waits until no job is pending or running (bounded) and returns every job, newest first. */
export function jobsSettled(runtime: TestRuntime, timeoutMs = 60_000): Promise<JobListing[]> {
  return waitFor('every job to finish', timeoutMs, async () => {
    const jobs = await runtime.services.jobs.list(ADMIN, { count: 1000 });
    return jobs.every((j) => j.status === 'done' || j.status === 'failed') ? jobs : undefined;
  }, 50);
}
