/** Health and job-progress routes. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/index.js';
import { intParam, stringParam, type Query } from './params.js';

export type ComponentHealth = { ok: boolean } & Record<string, unknown>;

export interface HealthSource {
  /** Component states for GET /health; `ok: false` anywhere makes the answer 503. */
  health(): Promise<Record<string, ComponentHealth>>;
  /** Whether the server should get traffic (GET /health/ready), and if not, why. */
  ready(): Promise<Readiness>;
}

export type Readiness = { readonly ready: true } | { readonly ready: false; readonly reason: string };

/**
 * The component states, shared by the probes that arrive while a check is running: a
 * check is several queries, and probes that pile up while the server is busy must not
 * each take database connections from the requests they are checking on. A probe that
 * arrives after a check finished starts a new one, so an answer is never older than the
 * request that asked for it by more than one check.
 */
function sharedHealth(source: HealthSource): () => Promise<Record<string, ComponentHealth>> {
  let running: Promise<Record<string, ComponentHealth>> | undefined;
  return () => {
    running ??= source.health().finally(() => {
      running = undefined;
    });
    return running;
  };
}

/** Probes for orchestrators (docs/operations.md): live while the process runs; ready while it should get traffic. */
export const PROBE_PATHS = ['/health/live', '/health/ready'];

/** /health or a probe: answered to anyone, never rate limited, never held for a principal's share. */
export function isHealthPath(path: string): boolean {
  return path === '/health' || PROBE_PATHS.includes(path);
}

export async function healthRoutes(app: FastifyInstance, options: { health: HealthSource }): Promise<void> {
  const health = sharedHealth(options.health);
  let checking: Promise<Readiness> | undefined;
  const ready = () => {
    checking ??= options.health.ready().finally(() => {
      checking = undefined;
    });
    return checking;
  };
  app.get('/health/live', async () => ({ status: 'live' }));
  app.get('/health/ready', async (_request, reply) => {
    const state = await ready();
    return state.ready ? { status: 'ready' } : reply.code(503).send({ status: 'not ready', reason: state.reason });
  });
  // GET /health: 200 `ok` or 503 `degraded` for anyone; the components (database, search
  // and its indexer, jobs, the change log) only for a caller with a valid token (issue #29:
  // job counts and indexer state are nobody else's business).
  app.get('/health', async (request, reply) => {
    const components = await health();
    const ok = Object.values(components).every((c) => c.ok);
    const status = ok ? 'ok' : 'degraded';
    return reply.code(ok ? 200 : 503).send(request.caller ? { status, ...components } : { status });
  });
}

export async function jobRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  const jobs = options.services.jobs;
  app.get('/jobs', async (request) => {
    const q = request.query as Query;
    const status = stringParam(q, 'status');
    const kind = stringParam(q, 'kind');
    const propertyUrn = stringParam(q, 'propertyUrn');
    return { jobs: await jobs.list(request.caller, { ...(status ? { status } : {}), ...(kind ? { kind } : {}), ...(propertyUrn ? { propertyUrn } : {}), count: intParam(q, 'count') }) };
  });
  app.get('/jobs/:id', async (request) => jobs.get(request.caller, (request.params as { id: string }).id));
}

/**
 * system-update (docs/contract.md §5): queues a rebuild of the search indexes from the database
 * and answers 202 with the job to follow at GET /v3/jobs/{id}. A rebuild already
 * queued or running is returned instead of a second one.
 */
export async function systemUpdateRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  app.post('/system/update', async (request, reply) => {
    const { jobId, created } = await options.services.search.requestRebuild(request.caller, 'system-update');
    return reply.code(202).send({ jobId, created, job: `/jobs/${jobId}` });
  });
}

/**
 * A backup while the server runs (docs/operations.md): the whole database as one
 * consistent snapshot, streamed as a gzip file (`propgraph backup --out FILE` saves and
 * checks it). A snapshot that fails part-way cuts the download short; the file's end
 * line (counts and checksum) is then missing, which the CLI reports.
 */
export async function backupRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  app.get('/system/backup', async (request, reply) => {
    const backup = await options.services.backup.start(request.caller);
    return reply
      .header('content-type', 'application/gzip')
      .header('content-disposition', `attachment; filename="${backup.filename}"`)
      .header('cache-control', 'no-store')
      .send(backup.stream);
  });
}
