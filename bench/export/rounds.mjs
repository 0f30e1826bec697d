// Where an export run's wall time goes against the round trips it cannot avoid: for
// each export of one `rcs export all` against a mock with latency, its pages, its time from the
// manifest, and its round trips at concurrency N (page 1 alone, then N at a time), × latency.
// The sum is the floor of a run that reads exports one after another without overlapping them;
// the run's wall below that sum is what the boundary overlap (run.ts) wins.
//
//   npm run build && npx node bench/export/rounds.mjs [records=200000] [latencyMs=50] [concurrency=8]
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RCS, requireBuild, startMock } from './lib.mjs';

requireBuild();
const records = Number(process.argv[2] ?? 200_000);
const latencyMs = Number(process.argv[3] ?? 50);
const concurrency = Number(process.argv[4] ?? 8);

const mock = await startMock(['--records', String(records), '--latency-ms', String(latencyMs)]);
const out = await mkdtemp(join(tmpdir(), 'rcs-rounds-'));
try {
  const started = Date.now();
  const run = spawnSync(
    process.execPath,
    [RCS, 'export', 'all', '--concurrency', String(concurrency), '--out', out],
    { env: { ...process.env, RCS_BASE_URL: mock.url, RCS_API_KEY: mock.apiKey }, stdio: 'inherit' },
  );
  const wallMs = Date.now() - started;
  if (run.status !== 0) throw new Error(`rcs export all exited with ${run.status}`);
  const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
  let floorMs = 0;
  let pages = 0;
  for (const e of manifest.resources) {
    const rounds = 1 + Math.ceil((e.pages - 1) / concurrency);
    floorMs += rounds * latencyMs;
    pages += e.pages;
    console.log(
      `${e.resource.padEnd(22)} ${String(e.pages).padStart(5)} pages ${String(e.durationMs).padStart(6)} ms, ${rounds} round trips = ${rounds * latencyMs} ms`,
    );
  }
  const ideal = (pages / concurrency) * latencyMs;
  console.log(
    `wall ${wallMs} ms = ${(wallMs / ideal).toFixed(2)}x ideal (${Math.round(ideal)} ms); exports without overlap could not beat ${floorMs} ms = ${(floorMs / ideal).toFixed(2)}x`,
  );
} finally {
  await mock.stop();
  await rm(out, { recursive: true, force: true });
}
