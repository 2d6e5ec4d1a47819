/**
 * Samples `GET /health` latency from a worker thread while a suite drives heavy
 * requests. The worker has its own event loop, so when the server (running in the
 * suite's process) stalls, the probe keeps sending on schedule and every request
 * sent during the stall shows it; a probe on the stalled loop would only see one.
 * Before the heavy requests start, the first samples warm the probe up (a new thread's
 * first requests are slow) and the next ones are the idle baseline: on a loaded machine
 * /health is slower without any help from the server.
 */
import { Worker } from 'node:worker_threads';

const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, everyMs, warmUp } = workerData;
let baseline = workerData.baseline;
let samples = [];
let skipped = 0;
const pending = new Set();
let stopped = false;
function one() {
  const started = performance.now();
  const p = fetch(url + '/health', { signal: AbortSignal.timeout(120000) })
    .then(async (res) => {
      await res.arrayBuffer();
      if (skipped < warmUp) skipped++;
      else samples.push(res.ok ? performance.now() - started : -1);
    })
    .catch(() => samples.push(-1))
    .finally(() => {
      pending.delete(p);
      if (baseline !== undefined && samples.length >= baseline) {
        parentPort.postMessage({ idle: samples });
        samples = [];
        baseline = undefined;
      }
    });
  pending.add(p);
}
let timer = setInterval(() => { if (!stopped) one(); }, everyMs);
parentPort.on('message', async () => {
  stopped = true;
  clearInterval(timer);
  // Work that ended before the next probe was due still gets one: the server answers after it.
  if (samples.length === 0 && pending.size === 0) one();
  await Promise.all([...pending]);
  parentPort.postMessage({ load: samples });
});
`;

export interface HealthLatency {
  readonly samples: number;
  /** Probes that got no 2xx answer. */
  readonly failed: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export interface HealthProbe {
  /** Resolves with the idle baseline once its samples are in. */
  readonly idle: Promise<HealthLatency>;
  /** Stops sampling, waits for the requests in flight, and summarises what came after the baseline. */
  stop(): Promise<HealthLatency>;
}

export function startHealthProbe(url: string, options: { everyMs?: number; baselineSamples?: number } = {}): HealthProbe {
  const worker = new Worker(PROBE, { eval: true, workerData: { url, everyMs: options.everyMs ?? 50, warmUp: 10, baseline: options.baselineSamples ?? 30 } });
  const idle = new Promise<HealthLatency>((resolve, reject) => {
    worker.once('message', (m: { idle: number[] }) => resolve(summarise(m.idle)));
    worker.once('error', reject);
  });
  return {
    idle,
    stop: async () => {
      await idle;
      const samples = await new Promise<number[]>((resolve, reject) => {
        worker.once('message', (m: { load: number[] }) => resolve(m.load));
        worker.once('error', reject);
        worker.postMessage('stop');
      });
      await worker.terminate();
      return summarise(samples);
    },
  };
}

function summarise(samples: readonly number[]): HealthLatency {
  const ok = samples.filter((s) => s >= 0).sort((a, b) => a - b);
  const at = (q: number) => (ok.length === 0 ? Infinity : ok[Math.min(ok.length - 1, Math.floor(q * ok.length))]!);
  const round = (n: number) => Math.round(n * 10) / 10;
  return { samples: samples.length, failed: samples.length - ok.length, p50: round(at(0.5)), p99: round(at(0.99)), max: round(ok[ok.length - 1] ?? Infinity) };
}

/**
 * Runs `work` while probing /health; returns what `work` returned, the idle baseline and
 * the latency during `work`. With `warmUp`, `work` runs once before, unmeasured: the
 * first run of a code path includes compiling it, which is not what is measured.
 */
export async function underHealthProbe<T>(url: string, work: () => Promise<T>, options: { warmUp?: boolean } = {}): Promise<{ result: T; idle: HealthLatency; health: HealthLatency }> {
  if (options.warmUp) await work();
  const probe = startHealthProbe(url);
  const idle = await probe.idle;
  try {
    const result = await work();
    return { result, idle, health: await probe.stop() };
  } catch (err) {
    await probe.stop();
    throw err;
  }
}
