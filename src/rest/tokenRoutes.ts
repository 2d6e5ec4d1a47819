/** Access token management over REST v3 (admin scope, or a signed-in person's own tokens; the policy in services/ checks it). */
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../domain/errors.js';
import { parseShape } from '../domain/shapes/shape.js';
import type { Services } from '../services/index.js';
import { createTokenShape } from './bodies/tokens.js';

export async function tokenRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  const tokens = options.services.tokens;
  app.post('/tokens', async (request) => {
    const body = parseShape(createTokenShape, request.body, 'request body');
    const created = await tokens.create(request.caller, {
      name: body.name,
      scope: body.scope,
      description: body.description ?? null,
      expiresAt: body.expiresAt ?? null,
      type: body.type ?? null,
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
