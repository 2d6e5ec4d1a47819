// The engine alone (issue 32): what Meilisearch's task round trip allows writes that wait
// for the index, without the service. `concurrency` clients each add one document (a
// document of the service's own dataset index, sent back as it is, so the engine does
// the work of a real update) and wait for its task, polling as the service polls (5 ms
// doubling to 50 ms) and then every millisecond (the engine's own round trip, as near as
// polling gets). Meilisearch batches the tasks that wait in its queue, so the clients'
// tasks share batches as the service's do.
import { load, rawRequest, round } from './support.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function datasetIndex(meili) {
  const auth = { authorization: `Bearer ${meili.key}` };
  const { json } = await rawRequest(`${meili.url}/indexes?limit=1000`, 'GET', undefined, auth);
  // Named propgraph_<type>_<format> (search/indexFormat.ts).
  const index = json.results.find((i) => /(^|_)dataset(_[0-9a-z]+)?$/.test(i.uid));
  if (!index) throw new Error(`no dataset index among ${json.results.map((i) => i.uid).join(', ')}`);
  const docs = (await rawRequest(`${meili.url}/indexes/${index.uid}/documents?limit=1000`, 'GET', undefined, auth)).json.results;
  return { uid: index.uid, docs, auth };
}

async function addAndWait(meili, index, doc, poll) {
  const task = (await rawRequest(`${meili.url}/indexes/${index.uid}/documents?primaryKey=id`, 'POST', [doc], index.auth)).json;
  for (let polls = 1; ; polls++) {
    const { json } = await rawRequest(`${meili.url}/tasks/${task.taskUid}`, 'GET', undefined, index.auth);
    if (json.status === 'succeeded') return json.batchUid;
    if (json.status === 'failed' || json.status === 'canceled') throw new Error(`task ${task.taskUid} ${json.status}: ${json.error?.message}`);
    await sleep(poll(polls));
  }
}

/** Operations per second and latency, and how many tasks each Meilisearch batch held, per poll schedule. */
export async function engineAlone(meili, opts) {
  const index = await datasetIndex(meili);
  const total = Math.min(opts.writes, 3000);
  const schedules = [
    ['the service\'s polls (5 ms doubling to 50 ms)', (n) => Math.min(50, 5 * 2 ** (n - 1))],
    ['polls every 1 ms', () => 1],
  ];
  const out = [];
  for (const [label, poll] of schedules) {
    const batches = new Map();
    const result = await load(total, opts.concurrency, async (i) => {
      const batch = await addAndWait(meili, index, index.docs[i % index.docs.length], poll);
      batches.set(batch, (batches.get(batch) ?? 0) + 1);
    });
    const perBatch = [...batches.values()].sort((a, b) => a - b);
    out.push({ label, ...result, batches: batches.size, tasksPerBatch: perBatch[Math.floor(perBatch.length / 2)] });
    console.log(`engine alone, ${label}: ${round(result.opsPerSecond)}/s, p50 ${round(result.p50, 1)} ms, p99 ${round(result.p99, 1)} ms; ${batches.size} batches, ${out.at(-1).tasksPerBatch} tasks each (median)`);
  }
  return out;
}
