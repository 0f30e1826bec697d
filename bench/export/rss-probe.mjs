// Preloaded into the CLI process (`node --import`): reports its peak RSS when it exits, so the
// bench measures the real `rcs export` and not a look-alike; with RCS_BENCH_CPU_FILE, its CPU too.
import { writeFileSync } from 'node:fs';

const target = process.env.RCS_BENCH_RSS_FILE;
if (target) {
  process.on('exit', () => {
    // resourceUsage().maxRSS is in kilobytes.
    writeFileSync(target, String(process.resourceUsage().maxRSS * 1024));
  });
}
// With RCS_BENCH_CPU_FILE, also the process's own CPU (user + sys) in milliseconds.
const cpuTarget = process.env.RCS_BENCH_CPU_FILE;
if (cpuTarget) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(cpuTarget, JSON.stringify({ userMs: user / 1000, sysMs: system / 1000 }));
  });
}
