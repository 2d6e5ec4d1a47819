/** Health and job-progress routes. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/index.js';
import { intParam, stringParam, type Query } from './params.js';

export type ComponentHealth = { ok: boolean } & Record<string, unknown>;

export interface HealthSource {
  /** Component states for GET /health; `ok: false` anywhere makes the answer 503. */
  health(): Promise<Record<string, ComponentHealth>>;
}

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

/**
 * GET /health: 200 `ok` or 503 `degraded` for anyone (a load balancer's probe needs no
 * token); the components (database, search and its indexer, jobs, the change log) only
 * for a caller with a valid token (issue #29: job counts and indexer state are nobody
 * else's business).
 */
export async function healthRoutes(app: FastifyInstance, options: { health: HealthSource }): Promise<void> {
  const health = sharedHealth(options.health);
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
    return { jobs: await jobs.list(request.caller, { ...(status ? { status } : {}), count: intParam(q, 'count') }) };
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
