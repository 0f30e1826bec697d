// CPU time (all threads: `perf stat -e task-clock`) of `rcs --help`, `rcs --version` and
// `rcs check <fixture>` against `node -e 0`, interleaved, medians. Wall time on a shared machine
// moves with the load; the CPU a run needs moves far less (bench/cli/README.md). Linux + perf.
//
//   npm run build && npx node bench/cli/startup-cpu.mjs [runs=40] [bin=packages/cli/bin/rcs.js]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = (p) => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const runs = Number(process.argv[2] ?? 40);
const cli = process.argv[3] ?? root('packages/cli/bin/rcs.js');
const fixture = root('test/shared/fixtures/transcripts/synthetic/3-digit-hours.srt');
const commands = [
  ['node -e 0', ['-e', '0']],
  ['rcs --help', [cli, '--help']],
  ['rcs --version', [cli, '--version']],
  ['rcs check <file>', [cli, 'check', fixture, '--email', 'rep@acme.com']],
];

/** CPU milliseconds of one run (stdout to /dev/null, as startup.mjs). */
function cpu(args) {
  const r = spawnSync('perf', ['stat', '-x,', '-e', 'task-clock', process.execPath, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (r.error) throw new Error(`perf is needed (${r.error.message})`);
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const line = r.stderr
    .trim()
    .split('\n')
    .find((l) => l.includes('task-clock'));
  const ms = Number(line?.split(',')[0]);
  if (!Number.isFinite(ms)) throw new Error(`no task-clock in: ${r.stderr}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (let i = 0; i < 3; i++) for (const [, args] of commands) cpu(args);
const samples = commands.map(() => []);
for (let i = 0; i < runs; i++) {
  commands.forEach(([, args], j) => {
    samples[j].push(cpu(args));
  });
}
const base = median(samples[0]);
console.log(`node ${process.version}, ${runs} runs each, interleaved; CPU time, all threads`);
commands.forEach(([label], j) => {
  const m = median(samples[j]);
  console.log(`${label.padEnd(18)} median ${m.toFixed(1)} ms  ratio ${(m / base).toFixed(2)}x`);
});
