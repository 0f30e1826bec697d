// Start-up time of the mock: from spawning it to its first stdout line (the server is listening),
// default dataset vs --records 1000000. Median of RUNS runs. Two ways to start it:
// - `rcs mock`, the command users run (bin/rcs.js, one bundle);
// - `serve.mjs`, the library (`startMockServer` from packages/mock/dist) in a bare script, which
//   compiles msw, zod and jose afresh every time.
//   npm run build && npx node bench/mock/startup.mjs
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVE = fileURLToPath(new URL('./serve.mjs', import.meta.url));
const RCS = fileURLToPath(new URL('../../packages/cli/bin/rcs.js', import.meta.url));
const RUNS = Number(process.env.RUNS ?? 5);

function startOnce(args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', () => {
      const ms = performance.now() - t0;
      child.kill('SIGTERM');
      child.once('exit', () => resolve(ms));
    });
    child.once('error', reject);
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const [how, command] of [
  ['rcs mock', [RCS, 'mock', '--port', '0']],
  ['serve.mjs (library)', [SERVE]],
]) {
  for (const [label, args] of [
    ['default (2,000 records)', []],
    ['--records 1000000', ['--records', '1000000']],
  ]) {
    const times = [];
    for (let i = 0; i < RUNS; i++) times.push(await startOnce([...command, ...args]));
    rows.push({
      started: how,
      dataset: label,
      'median ms': Math.round(median(times)),
      'min ms': Math.round(Math.min(...times)),
      'max ms': Math.round(Math.max(...times)),
    });
  }
}
console.table(rows);
console.log(JSON.stringify({ node: process.version, runs: RUNS, rows }));
