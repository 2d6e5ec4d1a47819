/**
 * /metrics: on the API's port behind a token (any scope), and, when METRICS_PORT is
 * set, on a port of its own without one, for a Prometheus that cannot hold a token or a
 * network where only the scraper reaches that port. The second port serves nothing else.
 */
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../platform/logger.js';
import type { MetricsSource } from '../services/metricsScrape.js';

export const METRICS_PATH = '/metrics';

export async function metricsRoutes(app: FastifyInstance, options: { metrics: MetricsSource }): Promise<void> {
  app.get(METRICS_PATH, async (_request, reply) => reply.type(options.metrics.contentType).send(await options.metrics.scrape()));
}

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/** The metrics port: GET /metrics, and 404 (in the API's error shape) for anything else. */
export async function startMetricsServer(host: string, port: number, metrics: MetricsSource, log: Logger): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not Found', message: `This port serves only GET ${METRICS_PATH}` }));
      return;
    }
    metrics.scrape().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(request.method === 'HEAD' ? undefined : text),
      (err: unknown) => {
        log.warn({ err: (err as Error).message }, 'metrics scrape failed');
        response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Internal Server Error', message: 'The metrics could not be collected' }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
