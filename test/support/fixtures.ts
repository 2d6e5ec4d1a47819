/** Shared arrange steps for suites that talk to a running server over REST. */
import { enc, http } from './http.js';
import { waitFor } from './waitFor.js';
import type { Backend } from './server.js';

export const V3 = '/openapi/v3';

export function propertyUrn(qualifiedName: string): string {
  return `urn:li:structuredProperty:${qualifiedName}`;
}

export function datasetUrnOf(name: string, platform = 'hive'): string {
  return `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`;
}

/** Creates or updates a property definition over REST v3 and asserts it worked. */
export async function defineProperty(baseUrl: string, qualifiedName: string, definition: Record<string, unknown>): Promise<string> {
  const urn = propertyUrn(qualifiedName);
  const res = await http(baseUrl, 'POST', `${V3}/entity/structuredProperty/${enc(urn)}/propertyDefinition`, {
    query: { createIfNotExists: 'false' },
    json: { value: { qualifiedName, entityTypes: ['urn:li:entityType:svc.dataset'], ...definition } },
  });
  expect(res.status).toBe(200);
  return urn;
}

/** Creates datasets (with a status aspect) over REST v3. */
export async function createDatasets(baseUrl: string, urns: string[]): Promise<void> {
  const res = await http(baseUrl, 'POST', `${V3}/entity/dataset`, { json: urns.map((urn) => ({ urn, status: { value: { removed: false } } })) });
  expect(res.status).toBe(200);
}

export async function setProperties(baseUrl: string, datasetUrn: string, properties: Array<{ propertyUrn: string; values: unknown[] }>) {
  return http(baseUrl, 'POST', `${V3}/entity/dataset/${enc(datasetUrn)}/structuredProperties`, {
    query: { createIfNotExists: 'false' },
    json: { value: { properties } },
  });
}

export async function getProperties(baseUrl: string, datasetUrn: string) {
  return http(baseUrl, 'GET', `${V3}/entity/dataset/${enc(datasetUrn)}/structuredProperties`);
}

export async function softDelete(baseUrl: string, propertyUrnValue: string, removed = true) {
  return http(baseUrl, 'POST', `${V3}/entity/structuredProperty/${enc(propertyUrnValue)}/status`, {
    query: { createIfNotExists: 'false' },
    json: { value: { removed } },
  });
}

/** Waits until no background job is pending or running (bounded). */
export function waitForJobs(baseUrl: string, timeoutMs = 30_000): Promise<Array<Record<string, any>>> {
  return waitFor('every job to finish', timeoutMs, async () => {
    const jobs = (await http(baseUrl, 'GET', `${V3}/jobs`)).body.jobs as Array<Record<string, any>>;
    return jobs.every((j) => j.status === 'done' || j.status === 'failed') ? jobs : undefined;
  }, 100);
}

/** Waits until job `id` is done or failed (bounded), and returns it. */
export function waitForJob(baseUrl: string, id: string, timeoutMs = 120_000): Promise<Record<string, any>> {
  return waitFor(`job ${id} to finish`, timeoutMs, async () => {
    const job = (await http(baseUrl, 'GET', `${V3}/jobs/${id}`)).body as Record<string, any>;
    return job.status === 'done' || job.status === 'failed' ? job : undefined;
  }, 100);
}

/** The backends every storage-touching suite runs against: the embedded PostgreSQL always, an external one when available. */
export function backends(): Backend[] {
  if (!process.env.PROPGRAPH_TEST_PG_URL) return ['embedded'];
  return ['embedded', 'external'];
}
