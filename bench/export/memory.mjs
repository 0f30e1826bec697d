// Goal: peak RSS of `rcs export all` at 10,000 and at 1,000,000 records under 150 MB,
// growing by less than 20 MB between the two (memory stays flat however large the export).
// The mock runs in its own process with no latency; the CLI's peak RSS is read by a preloaded
// probe (rss-probe.mjs) from process.resourceUsage().maxRSS. For reference, the same pages are
// also read by a bare node:http loop (fetch-floor.mjs), as the CLI sends them: the part of the
// RSS that is Node's, not the exporter's.
//
//   npm run build && npx node bench/export/memory.mjs [sizes=10000,100000,300000,1000000] [format=jsonl] [changes]
// With `changes`, each size is exported twice into the same directory with --changes
// and the second run is measured: it merges with a full previous state.
// The goal compares the first and the last size; the ones between show where RSS levels off.
import { bareLoop, mb, requireBuild, runExport, sec, startMock } from './lib.mjs';

requireBuild();
const sizes = (process.argv[2] ?? '10000,100000,300000,1000000').split(',').map(Number);
const format = process.argv[3] ?? 'jsonl';
const changes = process.argv[4] === 'changes';

const results = [];
for (const records of sizes) {
  const mock = await startMock(['--records', String(records)]);
  try {
    const run = await runExport(
      mock,
      ['all', '--format', format, ...(changes ? ['--changes'] : [])],
      {
        repeat: changes ? 2 : 1,
      },
    );
    const floor = await bareLoop(mock);
    const count = run.manifest.resources.reduce((n, e) => n + e.count, 0);
    results.push({ records: count, floor: floor.rssBytes, ...run });
    console.log(
      `${String(count).padStart(9)} records (${format}${changes ? ' --changes, 2nd run' : ''}): peak RSS ${mb(run.rssBytes)} (bare node:http loop: ${mb(floor.rssBytes)}), ${sec(run.wallMs)}, ${Math.round(count / (run.wallMs / 1000))} records/s end to end`,
    );
  } finally {
    await mock.stop();
  }
}
const first = results[0];
const last = results.at(-1);
const growth = last.rssBytes - first.rssBytes;
const floorGrowth = last.floor - first.floor;
console.log(
  `growth ${mb(growth)} (goal < 20 MB; bare node:http loop ${mb(floorGrowth)}); peak ${mb(Math.max(...results.map((r) => r.rssBytes)))} (goal < 150 MB)`,
);
