/** Small REST fixtures for search suites: define properties, create datasets, set values. */
import { enc, http } from './http.js';

export const V3 = '/openapi/v3';

export function datasetUrn(name: string, platform = 'hive', origin = 'PROD'): string {
  return `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},${origin})`;
}

export function propertyUrn(qualifiedName: string): string {
  return `urn:li:structuredProperty:${qualifiedName}`;
}

export interface DefinitionInput {
  valueType?: string;
  cardinality?: 'SINGLE' | 'MULTIPLE';
  entityTypes?: string[];
  allowedValues?: Array<{ value: { double: number } | { string: string } }>;
  version?: string;
}

async function ok<T>(p: Promise<{ status: number; text: string; body: T }>): Promise<T> {
  const res = await p;
  if (res.status >= 300) throw new Error(`HTTP ${res.status}: ${res.text}`);
  return res.body;
}

export async function defineProperty(base: string, qualifiedName: string, def: DefinitionInput = {}): Promise<unknown> {
  return ok(
    http(base, 'POST', `${V3}/entity/structuredProperty/${enc(propertyUrn(qualifiedName))}/propertyDefinition`, {
      query: { createIfNotExists: 'false' },
      json: {
        value: {
          qualifiedName,
          valueType: `urn:li:dataType:svc.${def.valueType ?? 'string'}`,
          cardinality: def.cardinality ?? 'MULTIPLE',
          entityTypes: def.entityTypes ?? ['urn:li:entityType:svc.dataset'],
          ...(def.allowedValues ? { allowedValues: def.allowedValues } : {}),
          ...(def.version ? { version: def.version } : {}),
        },
      },
    }),
  );
}

export async function createDatasets(base: string, urns: string[], options: { async?: boolean } = {}): Promise<void> {
  await ok(
    http(base, 'POST', `${V3}/entity/dataset`, {
      query: options.async ? { async: 'true' } : {},
      json: urns.map((urn) => ({ urn, status: { value: { removed: false } } })),
    }),
  );
}

export type Values = Record<string, Array<string | number>>;

export function propertiesAspect(values: Values): { properties: Array<{ propertyUrn: string; values: unknown[] }> } {
  return {
    properties: Object.entries(values).map(([name, vs]) => ({
      propertyUrn: propertyUrn(name),
      values: vs.map((v) => (typeof v === 'number' ? { double: v } : { string: v })),
    })),
  };
}

/** Replaces the entity's structured properties (REST v3 POST, upsert). */
export async function setValues(base: string, urn: string, values: Values, options: { async?: boolean } = {}): Promise<void> {
  await ok(
    http(base, 'POST', `${V3}/entity/dataset/${enc(urn)}/structuredProperties`, {
      query: { createIfNotExists: 'false', ...(options.async ? { async: 'true' } : {}) },
      json: { value: propertiesAspect(values) },
    }),
  );
}

/** Creates datasets with their values in one batch request. */
export async function upsertDatasetsWithValues(base: string, entries: Array<{ urn: string; values: Values }>, options: { async?: boolean } = {}): Promise<void> {
  await ok(
    http(base, 'POST', `${V3}/entity/dataset`, {
      query: options.async ? { async: 'true' } : {},
      json: entries.map((e) => ({ urn: e.urn, status: { value: { removed: false } }, structuredProperties: { value: propertiesAspect(e.values) } })),
    }),
  );
}

export async function softDeleteProperty(base: string, qualifiedName: string, removed = true): Promise<void> {
  await ok(
    http(base, 'POST', `${V3}/entity/structuredProperty/${enc(propertyUrn(qualifiedName))}/status`, {
      query: { createIfNotExists: 'false' },
      json: { value: { removed } },
    }),
  );
}

export async function hardDelete(base: string, entityType: string, urn: string): Promise<void> {
  await ok(http(base, 'DELETE', `${V3}/entity/${entityType}/${enc(urn)}`));
}

/** GET /v3/entity/dataset with a query; returns status, body. */
export function searchRest(base: string, query: string, extra: Record<string, string | string[]> = {}) {
  return http(base, 'GET', `${V3}/entity/dataset`, { query: { query, ...extra } });
}
