// `rcs --help` start-up time against `node -e 0`, same Node, same machine, same run
// (goal: ratio ≤ 1.6). Runs are interleaved so that machine noise hits
// both alike. On a busy machine, startup-cpu.mjs (CPU time, with perf) is steadier.
//
//   npm run build && npx node bench/cli/startup.mjs [runs=40]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// What users run: the bin npm links (it loads dist/rcs.js).
const cli = fileURLToPath(new URL('../../packages/cli/bin/rcs.js', import.meta.url));
const runs = Number(process.argv[2] ?? 40);

function time(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p10: q(0.1), p90: q(0.9), min: s[0] };
};

// Warm the file-system cache first.
for (let i = 0; i < 3; i++) {
  time(['-e', '0']);
  time([cli, '--help']);
}
const node = [];
const rcs = [];
for (let i = 0; i < runs; i++) {
  node.push(time(['-e', '0']));
  rcs.push(time([cli, '--help']));
}
const n = stats(node);
const r = stats(rcs);
const fmt = (x) => `${x.toFixed(1)} ms`;
console.log(`node ${process.version}, ${runs} runs each, interleaved`);
console.log(`node -e 0     median ${fmt(n.median)}  p10 ${fmt(n.p10)}  p90 ${fmt(n.p90)}`);
console.log(`rcs --help    median ${fmt(r.median)}  p10 ${fmt(r.p10)}  p90 ${fmt(r.p90)}`);
console.log(`ratio (medians) ${(r.median / n.median).toFixed(2)}x  (goal <= 1.6x)`);
