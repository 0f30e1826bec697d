// Does Node's compile cache pay for itself on `rcs --help`? CPU time (perf task-clock, all
// threads) and wall time of `node -e 0`, `rcs --help`, and `rcs --help` with Node's compile cache
// in a private temporary directory (NODE_COMPILE_CACHE, warm after the first run), interleaved,
// medians. The CLI turns on no cache of its own since it saved under 25 % (bench/cli/README.md).
//
//   npm run build && npx node bench/cli/compile-cache.mjs [runs=30] [bin=packages/cli/bin/rcs.js]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 30);
const cli =
  process.argv[3] ?? fileURLToPath(new URL('../../packages/cli/bin/rcs.js', import.meta.url));
const cacheDir = mkdtempSync(join(tmpdir(), 'rcs-bench-compile-cache-'));
const { NODE_COMPILE_CACHE: _a, NODE_DISABLE_COMPILE_CACHE: _b, ...env } = process.env;
const cases = [
  ['node -e 0', ['-e', '0'], env],
  ['rcs --help', [cli, '--help'], env],
  ['rcs --help, compile cache', [cli, '--help'], { ...env, NODE_COMPILE_CACHE: cacheDir }],
];

/** [CPU ms, wall ms] of one run. */
function measure(args, runEnv) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('perf', ['stat', '-x,', '-e', 'task-clock', process.execPath, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    env: runEnv,
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error) throw new Error(`perf is needed (${r.error.message})`);
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const line = r.stderr
    .trim()
    .split('\n')
    .find((l) => l.includes('task-clock'));
  return [Number(line?.split(',')[0]), wall];
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  for (let i = 0; i < 3; i++) for (const [, args, e] of cases) measure(args, e);
  const cpu = cases.map(() => []);
  const wall = cases.map(() => []);
  for (let i = 0; i < runs; i++) {
    cases.forEach(([, args, e], j) => {
      const [c, w] = measure(args, e);
      cpu[j].push(c);
      wall[j].push(w);
    });
  }
  console.log(`node ${process.version}, ${runs} runs each, interleaved; medians`);
  cases.forEach(([label], j) => {
    const c = median(cpu[j]);
    const w = median(wall[j]);
    console.log(
      `${label.padEnd(26)} CPU ${c.toFixed(1)} ms (${(c / median(cpu[0])).toFixed(2)}x)  wall ${w.toFixed(1)} ms (${(w / median(wall[0])).toFixed(2)}x)`,
    );
  });
  const saved = 1 - median(cpu[2]) / median(cpu[1]);
  console.log(
    `the cache saves ${(saved * 100).toFixed(1)} % of rcs --help's CPU (keep it at >= 25 %)`,
  );
} finally {
  rmSync(cacheDir, { recursive: true, force: true });
}
