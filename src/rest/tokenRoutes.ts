/** Access token management over REST v3 (admin scope; the policy in services/ checks it). */
import type { FastifyInstance } from 'fastify';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import type { Services } from '../services/index.js';

function body(raw: unknown): Record<string, unknown> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ValidationError('request body must be a JSON object', 'body');
  const obj = raw as Record<string, unknown>;
  const extra = Object.keys(obj).filter((k) => !['name', 'scope', 'description', 'expiresAt'].includes(k));
  if (extra.length > 0) throw new ValidationError(`Unknown field(s) in request body: ${extra.join(', ')}`, extra[0]);
  return obj;
}

export async function tokenRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  const tokens = options.services.tokens;
  app.post('/tokens', async (request) => {
    const b = body(request.body);
    if (b.description !== undefined && b.description !== null && typeof b.description !== 'string') throw new ValidationError('description must be a string', 'description');
    if (b.expiresAt !== undefined && b.expiresAt !== null && typeof b.expiresAt !== 'number') {
      throw new ValidationError('expiresAt must be a time in milliseconds since the epoch', 'expiresAt');
    }
    const created = await tokens.create(request.caller, {
      name: b.name as string,
      scope: b.scope as string,
      description: (b.description as string | null | undefined) ?? null,
      expiresAt: (b.expiresAt as number | null | undefined) ?? null,
    });
    return { accessToken: created.token, metadata: created.metadata };
  });
  app.get('/tokens', async (request) => ({ tokens: await tokens.list(request.caller) }));
  app.delete('/tokens/:id', async (request, reply) => {
    const id = (request.params as { id: string }).id;
    if (!/^[\w-]{1,100}$/.test(id)) throw new NotFoundError(`Access token ${id} does not exist`);
    await tokens.revoke(request.caller, id);
    return reply.code(200).send();
  });
}
