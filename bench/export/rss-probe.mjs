// Preloaded into the CLI process (`node --import`): reports its peak RSS and its CPU time (user +
// system) when it exits, so the bench measures the real `rcs export` and not a look-alike.
import { writeFileSync } from 'node:fs';

const target = process.env.RCS_BENCH_RSS_FILE;
if (target) {
  process.on('exit', () => {
    // resourceUsage().maxRSS is in kilobytes, the CPU times in microseconds.
    const usage = process.resourceUsage();
    writeFileSync(
      target,
      JSON.stringify({
        rssBytes: usage.maxRSS * 1024,
        cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
      }),
    );
  });
}
