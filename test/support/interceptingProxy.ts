/**
 * An HTTP proxy in front of a test server that runs a step of the test's own ahead of
 * forwarding each request: how a suite makes something happen between a client's read
 * and its write (another person's edit, a definition changed) at exactly that point,
 * with no timing.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface InterceptingProxy {
  readonly url: string;
  close(): Promise<void>;
}

/** An HTTP proxy to `target` that runs `before` on each request ahead of forwarding it. */
export async function interceptingProxy(target: string, before: (request: IncomingMessage, body: Buffer | undefined) => Promise<void>): Promise<InterceptingProxy> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      void (async () => {
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        await before(request, body);
        const headers = Object.fromEntries(Object.entries(request.headers).filter(([k, v]) => typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k))) as Record<string, string>;
        const answer = await fetch(`${target}${request.url}`, { method: request.method!, headers, ...(body ? { body } : {}) });
        response.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([k]) => !['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k))));
        response.end(Buffer.from(await answer.arrayBuffer()));
      })().catch((err: unknown) => {
        response.writeHead(502).end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
