// Where the memory of a second `export all --format parquet --changes` run is at its peak: one
// mock of N records, a first --changes run into a directory, then the second into the same one
// with heap-probe.mjs preloaded. Prints the peak sample's parts (V8 heap used and free, external
// memory, the rest) and a timeline of one sample a second.
//
//   npm run build && npx node bench/export/heap-changes.mjs [records=1000000] [format=parquet]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RCS, requireBuild, startMock } from './lib.mjs';

requireBuild();
const records = process.argv[2] ?? '1000000';
const format = process.argv[3] ?? 'parquet';
const probe = fileURLToPath(new URL('./heap-probe.mjs', import.meta.url));
const mock = await startMock(['--records', records]);
const dir = mkdtempSync(join(tmpdir(), 'rcs-heap-changes-'));
try {
  const env = { ...process.env, RCS_BASE_URL: mock.url, RCS_API_KEY: mock.apiKey };
  const args = [
    RCS,
    'export',
    'all',
    '--format',
    format,
    '--changes',
    '--out',
    join(dir, 'out'),
    '--quiet',
  ];
  spawnSync(process.execPath, args, { env, stdio: 'inherit' });
  const file = join(dir, 'heap.json');
  spawnSync(process.execPath, ['--import', probe, ...args], {
    env: { ...env, RCS_BENCH_HEAP_FILE: file },
    stdio: 'inherit',
  });
  const h = JSON.parse(readFileSync(file, 'utf8'));
  console.log(JSON.stringify({ maxRSS: h.maxRSS, cpuMs: h.cpuMs, peak: h.peak }, null, 1));
  for (const t of h.timeline) {
    console.log(
      `${t.at} ms  rss ${t.rss}  heap used ${t.heapUsed}  heap free ${t.heapFree}  external ${t.external}`,
    );
  }
} finally {
  await mock.stop();
  rmSync(dir, { recursive: true, force: true });
}
