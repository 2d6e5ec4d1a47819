/**
 * HTTP clients on another thread, for suites that measure the server in their own
 * process: reading megabytes of answers here would stall the event loop the server
 * shares with the suite, and count as the server's doing.
 */
import { Worker } from 'node:worker_threads';

const CLIENTS = `
const { parentPort, workerData } = require('node:worker_threads');
Promise.all(workerData.requests.map(async (r) => {
  const res = await fetch(workerData.url + r.path, { method: r.method, headers: r.body === undefined ? {} : { 'content-type': 'application/json' }, body: r.body });
  return { status: res.status, bytes: (await res.arrayBuffer()).byteLength };
})).then((answers) => parentPort.postMessage({ answers }), (err) => parentPort.postMessage({ error: String(err) }));
`;

export interface ClientRequest {
  readonly method: string;
  readonly path: string;
  /** JSON text. */
  readonly body?: string;
}

/** Sends the requests at once from a worker thread; resolves with each one's status and answer size. */
export async function fetchOffThread(url: string, requests: readonly ClientRequest[]): Promise<Array<{ status: number; bytes: number }>> {
  const worker = new Worker(CLIENTS, { eval: true, workerData: { url, requests } });
  try {
    const message = await new Promise<{ answers?: Array<{ status: number; bytes: number }>; error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    if (message.error !== undefined) throw new Error(message.error);
    return message.answers!;
  } finally {
    await worker.terminate();
  }
}
