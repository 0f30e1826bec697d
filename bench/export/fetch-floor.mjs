// The floor under `rcs export`'s memory: the same pages read over `node:http` with a keep-alive
// agent, 8 at a time as `--concurrency 8`, parsed and dropped: no SDK, no writing. Run by
// memory.mjs and memory-limited.mjs as its own process; prints its peak RSS in bytes. V8's
// defaults, as `rcs` runs (no V8 flags at run time). With `fetch` as third argument it
// reads through Node's fetch (undici, the CLI's one HTTP stack); with `request`, through
// undici's `request` API.
//
//   npx node bench/export/fetch-floor.mjs URL API_KEY [http|fetch|request]
import http from 'node:http';

const [url, key, via = 'http'] = process.argv.slice(2);
const { EXPORT_TABLE } = await import('../../packages/client/dist/index.js');
const agent = new http.Agent({ keepAlive: true });

function overHttp(target) {
  return new Promise((resolve, reject) => {
    http
      .get(target, { agent, headers: { 'X-API-KEY': key } }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function overFetch(target) {
  const res = await fetch(target, { headers: { 'X-API-KEY': key } });
  return res.json();
}

/** undici's `request` API (Node streams, no WHATWG Response per page), for comparison. */
const undici = via === 'request' ? await import('undici') : undefined;
const pool = undici ? new undici.Agent({ keepAliveTimeout: 10_000 }) : undefined;
async function overRequest(target) {
  const res = await undici.request(target, {
    dispatcher: pool,
    headers: { 'X-API-KEY': key },
  });
  return res.body.json();
}

const read = via === 'fetch' ? overFetch : via === 'request' ? overRequest : overHttp;
let records = 0;
for (const { path } of EXPORT_TABLE) {
  for (let page = 1, more = true; more; page += 8) {
    const pages = await Promise.all(
      Array.from({ length: 8 }, (_, i) => read(`${url}${path}?page=${page + i}&limit=100`)),
    );
    for (const p of pages) {
      records += p.data.length;
      if (!p.meta.hasNext) more = false;
    }
  }
}
agent.destroy();
await pool?.close();
process.stdout.write(JSON.stringify({ records, rssBytes: process.resourceUsage().maxRSS * 1024 }));
