/**
 * A loopback TCP port that was free a moment ago. Another process may take it before
 * the caller binds it; the embedded Meilisearch retries its start on another port when
 * that happens.
 *
 * It is drawn from below the kernel's ephemeral range (Linux: 32768-60999), not asked
 * of the kernel with port 0: a port from that range is also what the kernel gives an
 * outgoing connection as its source port, and a busy process (a test run's workers,
 * a server's clients) takes the one just probed within seconds. nginx in the proxy
 * suite failed to bind its port that way. Below the range only another explicit
 * choice can collide.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { randomInt } from 'node:crypto';

const LOWEST = 10_000;

/** The first port of the kernel's ephemeral range (32768 where it cannot be read). */
function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 0 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

/** Listens on `port` (0: the kernel's choice) and closes; the port, or undefined when it is taken. */
function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err)));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

export async function freePort(): Promise<number> {
  const end = ephemeralStart();
  if (end - LOWEST >= 1_000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = await probe(LOWEST + randomInt(end - LOWEST));
      if (port !== undefined) return port;
    }
  }
  const port = await probe(0);
  if (port === undefined) throw new Error('no free loopback port');
  return port;
}
