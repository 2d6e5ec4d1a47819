/** Health and job-progress routes. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/index.js';
import { intParam, stringParam, type Query } from './params.js';

export type ComponentHealth = { ok: boolean } & Record<string, unknown>;

export interface HealthSource {
  /** Component states for GET /health; `ok: false` anywhere makes the answer 503. */
  health(): Promise<Record<string, ComponentHealth>>;
}

/** How old a health answer may be when it is reused. */
const HEALTH_MAX_AGE_MS = 500;

/**
 * The component states, shared: probes that arrive while a check is running wait for
 * it, and an answer younger than HEALTH_MAX_AGE_MS is reused. A check is several
 * queries; load balancers probing often, or many probes queued behind a busy moment,
 * must not each take database connections from the requests they are checking on.
 */
function sharedHealth(source: HealthSource): () => Promise<Record<string, ComponentHealth>> {
  let last: { at: number; value: Promise<Record<string, ComponentHealth>> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > HEALTH_MAX_AGE_MS) {
      const value = source.health();
      const entry = { at: Number.POSITIVE_INFINITY, value };
      last = entry;
      // Fresh from when the check finished; a failed check is never reused.
      value.then(
        () => {
          entry.at = Date.now();
        },
        () => {
          if (last === entry) last = undefined;
        },
      );
    }
    return last.value;
  };
}

export async function healthRoutes(app: FastifyInstance, options: { health: HealthSource }): Promise<void> {
  const health = sharedHealth(options.health);
  app.get('/health', async (_request, reply) => {
    const components = await health();
    const ok = Object.values(components).every((c) => c.ok);
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'degraded', ...components });
  });
}

export async function jobRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  const jobs = options.services.jobs;
  app.get('/jobs', async (request) => {
    const q = request.query as Query;
    const status = stringParam(q, 'status');
    return { jobs: await jobs.list(request.caller, { ...(status ? { status } : {}), limit: intParam(q, 'count', 100, 1, 1000) }) };
  });
  app.get('/jobs/:id', async (request) => jobs.get(request.caller, (request.params as { id: string }).id));
}

/**
 * system-update (SPEC 5): queues a rebuild of the search indexes from the database
 * and answers 202 with the job to follow at GET /v3/jobs/{id}. A rebuild already
 * queued or running is returned instead of a second one.
 */
export async function systemUpdateRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  app.post('/system/update', async (request, reply) => {
    const { jobId, created } = await options.services.search.requestRebuild(request.caller, 'system-update');
    return reply.code(202).send({ jobId, created, job: `/jobs/${jobId}` });
  });
}
