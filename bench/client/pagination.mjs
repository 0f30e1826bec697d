// Auto-pagination throughput and memory of @rcs/client against an in-process MSW export.
// Run: npm run build && npx node --expose-gc bench/client/pagination.mjs
// Optional args: record counts, e.g. `... pagination.mjs 10000 100000 300000`.

import { delay, HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { createRcsClient } from '../../packages/client/dist/index.js';

const BASE = 'https://bench.rcs.test';
const LIMIT = 100;
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
// Simulated service time per page (0 = in-process speed): shows what concurrency buys.
const LATENCY_MS = Number(process.env.LATENCY_MS ?? 0);
const counts = process.argv.slice(2).map(Number).filter(Boolean);
if (counts.length === 0) counts.push(10_000, 100_000);

let total = 0;
// Records are made per request (like a database page), so the server holds no export in memory
// and the heap measured is the client's.
const server = setupServer(
  http.get(`${BASE}/api/v1/data-exports/users`, async ({ request }) => {
    if (LATENCY_MS > 0) await delay(LATENCY_MS);
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

const gc = globalThis.gc;
if (!gc) throw new Error('run with --expose-gc: npx node --expose-gc bench/client/pagination.mjs');
const client = createRcsClient({ baseUrl: BASE, apiKey: 'bench-key-123456' });
const DEDUPE = process.env.DEDUPE_WINDOW === 'Infinity' ? Number.POSITIVE_INFINITY : undefined;

/** GC until pending finalizers (which run between macrotasks) have released what they hold. */
async function settle() {
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 20));
    gc();
  }
}

/** Pass 1: throughput, nothing else in the loop. */
async function throughput(n) {
  total = n;
  gc();
  let count = 0;
  const started = performance.now();
  const it = client.exports.users.all({
    concurrency: CONCURRENCY,
    limit: LIMIT,
    dedupeWindow: DEDUPE,
  });
  for await (const _ of it) count++;
  const seconds = (performance.now() - started) / 1000;
  if (count !== n || it.stats.seen !== n) throw new Error(`expected ${n} records, got ${count}`);
  return { seconds, stats: it.stats };
}

/**
 * Pass 2: live heap. heapUsed right after a full GC is what the export really retains (without
 * GC it mostly measures garbage not yet collected). Sampled every 5,000 records.
 */
async function liveHeap(n) {
  total = n;
  await settle();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  let count = 0;
  const it = client.exports.users.all({
    concurrency: CONCURRENCY,
    limit: LIMIT,
    dedupeWindow: DEDUPE,
  });
  for await (const _ of it) {
    if (++count % 5_000 === 0) {
      // One macrotask turn first: FinalizationRegistry callbacks (undici's Request clean-up) run
      // only then, and a GC before them would count memory that is already let go.
      await new Promise((r) => setTimeout(r, 0));
      gc();
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
  }
  return { baseline, peak };
}

await throughput(2_000); // warm-up: JIT and MSW
const results = [];
for (const n of counts) {
  // Median of three runs: the machine is shared, single runs vary.
  const runs = [await throughput(n), await throughput(n), await throughput(n)];
  runs.sort((a, b) => a.seconds - b.seconds);
  const { seconds, stats } = runs[1];
  const { baseline, peak } = await liveHeap(n);
  results.push({
    records: n,
    pages: stats.pages,
    seconds: Number(seconds.toFixed(2)),
    'records/s': Math.round(n / seconds),
    'live heap before (MB)': Number((baseline / 2 ** 20).toFixed(1)),
    'peak live heap during (MB)': Number((peak / 2 ** 20).toFixed(1)),
    maxPagesHeld: stats.maxPagesHeld,
  });
}
console.table(results);
console.log(
  `node ${process.version}, concurrency ${CONCURRENCY}, limit ${LIMIT}, latency ${LATENCY_MS} ms/page, dedupeWindow ${DEDUPE ?? 'default (10,000)'}`,
);
server.close();
