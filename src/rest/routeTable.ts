/**
 * The table of every route the server registers, as Fastify announces them
 * (`onRoute`). The API documentation's coverage check compares it with the OpenAPI
 * document, so a route added without documentation is noticed.
 */
import type { FastifyInstance } from 'fastify';

export interface RouteEntry {
  readonly method: string;
  readonly url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    readonly routeTable: readonly RouteEntry[];
  }
}

/** Call before anything registers a route. */
export function recordRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) table.push({ method, url: route.url });
  });
}
