/**
 * A loopback TCP port that was free a moment ago: the kernel picks one for a listener
 * that is closed at once. Another process may take it before the caller binds it; the
 * embedded Meilisearch retries its start on another port when that happens.
 */
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
