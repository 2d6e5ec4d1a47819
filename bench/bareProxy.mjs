// The floor under the search figures: a bare node:http server, in its own process like
// the service, that checks the bearer token, reads the body and sends the very requests
// the service sent to Meilisearch for the same query (given on stdin as JSON, one list
// per path), answering with the engine's last answer. It parses no GraphQL and shapes
// no answer: what it costs over the raw request is what any Node service in front of
// the engine pays on this machine (two more HTTP hops, one process more to wake), the
// part of the gap a faster request path cannot remove.
// A route given a `page` (the REST search, whose target includes the aspects read) also
// reads the hits' page from PostgreSQL with the service's own statement and parameters
// (ENTITY_PAGE in store/aspects.ts, on the pg driver) and answers with its rows as
// JSON: the floor for a search that reads the database too.
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const input = JSON.parse(await new Promise((resolve) => {
  const chunks = [];
  process.stdin.on('data', (c) => chunks.push(c));
  process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
}));
const { meiliUrl, masterKey, token, routes, databaseUrl } = input;
const agent = new http.Agent({ keepAlive: true });
const pool = databaseUrl ? new pg.Pool({ connectionString: databaseUrl, max: 4 }) : undefined;
const { ENTITY_PAGE } = pool ? await import(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'store', 'aspects.js')) : {};

/** The page's rows for the engine's answer: the hits' latest aspects and held values. */
async function readPage(answer, names) {
  const body = JSON.parse(answer.toString('utf8'));
  const urns = (body.hits ?? body.results.flatMap((r) => r.hits)).map((h) => h.urn);
  const { rows } = await pool.query({ name: ENTITY_PAGE.name, text: ENTITY_PAGE.text, values: [urns, urns.map(() => null), urns.map(() => true), names] });
  return Buffer.from(JSON.stringify({ entities: rows }));
}

function post(path, body) {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${meiliUrl}${path}`, { method: 'POST', agent, headers: { authorization: `Bearer ${masterKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401).end();
      return;
    }
    const route = routes[new URL(req.url, 'http://x').searchParams.get('route')];
    let last = Buffer.from('{}');
    for (const r of route.requests) last = await post(r.path, r.body);
    if (route.page) last = await readPage(last, route.page);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': last.length }).end(last);
  });
});
server.keepAliveTimeout = 60_000;
// An orderly exit, so that a CPU profile (node --cpu-prof) is written.
process.on('SIGTERM', () => process.exit(0));
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })));
