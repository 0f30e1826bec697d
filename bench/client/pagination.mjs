// Auto-pagination throughput and memory of @rcs/client against an in-process MSW export.
// Run: npm run build && npx node --expose-gc bench/client/pagination.mjs
// Optional args: record counts, e.g. `... pagination.mjs 10000 100000 300000`.

import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { createRcsClient } from '../../packages/client/dist/index.js';

const BASE = 'https://bench.rcs.test';
const LIMIT = 100;
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const counts = process.argv.slice(2).map(Number).filter(Boolean);
if (counts.length === 0) counts.push(10_000, 100_000);

let total = 0;
// Records are made per request (like a database page), so the server holds no export in memory
// and the heap measured is the client's.
const server = setupServer(
  http.get(`${BASE}/api/v1/data-exports/users`, ({ request }) => {
    const q = new URL(request.url).searchParams;
    const page = Number(q.get('page'));
    const limit = Number(q.get('limit'));
    const from = (page - 1) * limit;
    const data = [];
    for (let i = from; i < Math.min(total, from + limit); i++) {
      data.push({
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        email: `user${i}@acme.test`,
        firstName: 'Rita',
        lastName: 'Rep',
        teamIds: ['11111111-1111-4111-8111-111111111111'],
        createdAt: '2026-01-01T00:00:00Z',
      });
    }
    return HttpResponse.json({
      data,
      meta: { total, page, limit, hasNext: from + limit < total },
    });
  }),
);
server.listen({ onUnhandledRequest: 'error' });

const gc = globalThis.gc ?? (() => {});
const client = createRcsClient({ baseUrl: BASE, apiKey: 'bench-key-123456' });

async function run(n) {
  total = n;
  gc();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  let count = 0;
  const started = performance.now();
  const it = client.exports.users.all({ concurrency: CONCURRENCY, limit: LIMIT });
  for await (const _ of it) {
    count++;
    if (count % 1_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  const seconds = (performance.now() - started) / 1000;
  if (count !== n || it.stats.seen !== n) throw new Error(`expected ${n} records, got ${count}`);
  return {
    records: n,
    pages: it.stats.pages,
    seconds: Number(seconds.toFixed(2)),
    recordsPerSecond: Math.round(n / seconds),
    peakHeapAboveBaselineMB: Number(((peak - baseline) / 2 ** 20).toFixed(1)),
    maxPagesHeld: it.stats.maxPagesHeld,
  };
}

// Warm-up (JIT, MSW) so the first measured run is not penalised.
await run(2_000);
const results = [];
for (const n of counts) results.push(await run(n));
console.table(results);
console.log(`node ${process.version}, concurrency ${CONCURRENCY}, limit ${LIMIT}`);
server.close();
