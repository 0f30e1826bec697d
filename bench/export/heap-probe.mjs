// Preloaded into the CLI process (`node --import`) to see where its memory is: every
// 20 ms, process.memoryUsage() and V8's heap spaces; at exit, a JSON file (RCS_BENCH_HEAP_FILE)
// with the sample where RSS peaked, its parts, and a timeline of one sample a second. The parts
// of RSS: V8's heap (used, and allocated but free: the collector's headroom), external memory
// (ArrayBuffers: the Parquet writer's page and chunk buffers, the id sets), and the rest (the
// `node` executable's pages, malloc's arenas, thread stacks), from /proc/self/status.
//
//   RCS_BENCH_HEAP_FILE=/tmp/heap.json npx node --import ./bench/export/heap-probe.mjs \
//     packages/cli/bin/rcs.js export all --format parquet --out DIR
import { readFileSync, writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const target = process.env.RCS_BENCH_HEAP_FILE;
if (target) {
  const started = performance.now();
  const mb = (n) => Math.round((n / 1048576) * 10) / 10;
  const status = () => {
    const text = readFileSync('/proc/self/status', 'utf8');
    const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) * 1024;
    return { rssAnon: kb('RssAnon'), rssFile: kb('RssFile') };
  };
  const sample = () => {
    const m = process.memoryUsage();
    const spaces = {};
    for (const s of getHeapSpaceStatistics()) spaces[s.space_name] = mb(s.space_used_size);
    return {
      at: Math.round(performance.now() - started),
      rss: mb(m.rss),
      heapUsed: mb(m.heapUsed),
      heapFree: mb(m.heapTotal - m.heapUsed),
      external: mb(m.external),
      arrayBuffers: mb(m.arrayBuffers),
      other: mb(m.rss - m.heapTotal - m.external),
      ...Object.fromEntries(Object.entries(status()).map(([k, v]) => [k, mb(v)])),
      spaces,
    };
  };
  let peak = sample();
  const timeline = [];
  let lastKept = -Infinity;
  const timer = setInterval(() => {
    const s = sample();
    if (s.rss > peak.rss) peak = s;
    if (s.at - lastKept >= 1000) {
      timeline.push({
        at: s.at,
        rss: s.rss,
        heapUsed: s.heapUsed,
        heapFree: s.heapFree,
        external: s.external,
      });
      lastKept = s.at;
    }
  }, 20);
  timer.unref();
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      target,
      JSON.stringify(
        {
          maxRSS: mb(usage.maxRSS * 1024),
          cpuMs: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000),
          peak,
          timeline,
        },
        null,
        1,
      ),
    );
  });
}
