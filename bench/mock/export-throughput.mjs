// Export pages per second (limit=100) over loopback, with autocannon against the built mock in
// a child process, at 10,000 and 1,000,000 records. Pages are picked at random over the whole
// list, so a rate that held only near page 1 would show here.
//   npm run build && npx node bench/mock/export-throughput.mjs
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const SERVE = fileURLToPath(new URL('./serve.mjs', import.meta.url));
const DURATION = Number(process.env.DURATION ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
const EXPORTS = (process.env.EXPORTS ?? 'real-call-sessions,users').split(',');

async function serve(records) {
  const child = spawn(process.execPath, [SERVE, '--records', String(records)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = await once(child.stdout, 'data');
  return { child, ...JSON.parse(String(line)) };
}

async function totalOf(url, apiKey, resource) {
  const r = await fetch(`${url}/api/v1/data-exports/${resource}?limit=1`, {
    headers: { 'x-api-key': apiKey },
  });
  return (await r.json()).meta.total;
}

const rows = [];
for (const records of [10_000, 1_000_000]) {
  const { child, url, apiKey } = await serve(records);
  try {
    for (const resource of EXPORTS) {
      const pages = Math.max(1, Math.ceil((await totalOf(url, apiKey, resource)) / 100));
      let n = 0;
      const result = await autocannon({
        url,
        connections: CONNECTIONS,
        duration: DURATION,
        headers: { 'x-api-key': apiKey },
        requests: [
          {
            method: 'GET',
            setupRequest: (req) => {
              // A deterministic spread of pages over the whole list.
              n = (n * 1103515245 + 12345) % 2147483648;
              return {
                ...req,
                path: `/api/v1/data-exports/${resource}?limit=100&page=${(n % pages) + 1}`,
              };
            },
          },
        ],
      });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
      rows.push({
        records,
        export: resource,
        'pages/s (mean)': Math.round(result.requests.average),
        'p50 ms': result.latency.p50,
        'p99 ms': result.latency.p99,
        'MB/s': +(result.throughput.average / 1e6).toFixed(1),
      });
    }
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}
console.table(rows);
console.log(
  JSON.stringify({ node: process.version, connections: CONNECTIONS, durationS: DURATION, rows }),
);
