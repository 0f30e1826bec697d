// The floor under `rcs export`'s memory: the same pages read with bare `fetch` (8 at a time, as
// `--concurrency 8`), parsed, and dropped: no SDK, no writing. Run by memory.mjs as its own
// process; prints its peak RSS in bytes. Same V8 settings as `rcs export` (young generation kept
// small, old generation grown by 10% per major GC).
//
//   npx node bench/export/fetch-floor.mjs URL API_KEY
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--semi-space-growth-factor=1');
setFlagsFromString('--heap-growing-percent=10');
const [url, key] = process.argv.slice(2);
const { EXPORT_TABLE } = await import('../../packages/client/dist/index.js');
let records = 0;
for (const { path } of EXPORT_TABLE) {
  for (let page = 1, more = true; more; page += 8) {
    const pages = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const res = await fetch(`${url}${path}?page=${page + i}&limit=100`, {
          headers: { 'X-API-KEY': key },
        });
        return res.json();
      }),
    );
    for (const p of pages) {
      records += p.data.length;
      if (!p.meta.hasNext) more = false;
    }
  }
}
process.stdout.write(JSON.stringify({ records, rssBytes: process.resourceUsage().maxRSS * 1024 }));
