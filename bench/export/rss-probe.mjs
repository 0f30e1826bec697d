// Preloaded into the CLI process (`node --import`): reports its peak RSS when it exits, so the
// bench measures the real `rcs export` and not a look-alike.
import { writeFileSync } from 'node:fs';

const target = process.env.RCS_BENCH_RSS_FILE;
if (target) {
  process.on('exit', () => {
    // resourceUsage().maxRSS is in kilobytes.
    writeFileSync(target, String(process.resourceUsage().maxRSS * 1024));
  });
}
