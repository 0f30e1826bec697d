// Two builds of `rcs export all`, alternated against one `rcs mock` (same data, same latency):
// wall time, the exporter's CPU (user + sys) and peak RSS of each run. For before/after figures
// on a shared machine, where the load moves more than the code (one HTTP stack).
//
//   npm run build && npx node bench/export/ab.mjs OTHER/packages/cli/dist/rcs.js [pairs=3] [records=200000] [latencyMs=50] [concurrency=8]
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RCS, requireBuild, sec, startMock } from './lib.mjs';

requireBuild();
const other = process.argv[2];
if (!other) {
  console.error(
    'usage: ab.mjs OTHER/packages/cli/dist/rcs.js [pairs] [records] [latencyMs] [concurrency]',
  );
  process.exit(2);
}
const pairs = Number(process.argv[3] ?? 3);
const records = Number(process.argv[4] ?? 200_000);
const latencyMs = Number(process.argv[5] ?? 50);
const concurrency = Number(process.argv[6] ?? 8);

const dir = await mkdtemp(join(tmpdir(), 'rcs-ab-'));
const probe = join(dir, 'probe.mjs');
await writeFile(
  probe,
  `import { writeFileSync } from 'node:fs';
process.on('exit', () => {
  const u = process.resourceUsage();
  writeFileSync(process.env.RCS_AB_FILE, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, rss: u.maxRSS * 1024 }));
});
`,
);

async function run(rcs, label, i) {
  const out = join(dir, `${label}-${i}`);
  const file = join(dir, `${label}-${i}.json`);
  const started = process.hrtime.bigint();
  const code = await new Promise((resolve) => {
    spawn(
      process.execPath,
      ['--import', probe, rcs, 'export', 'all', '--concurrency', String(concurrency), '--out', out],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          RCS_BASE_URL: mock.url,
          RCS_API_KEY: mock.apiKey,
          RCS_AB_FILE: file,
        },
      },
    ).on('exit', resolve);
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (code !== 0) throw new Error(`${label}: rcs export all exited with ${code}`);
  const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
  const pages = manifest.resources.reduce((n, e) => n + e.pages, 0);
  await rm(out, { recursive: true, force: true });
  return { wallMs, pages, ...JSON.parse(await readFile(file, 'utf8')) };
}

const mock = await startMock(['--records', String(records), '--latency-ms', String(latencyMs)]);
try {
  for (let i = 0; i < pairs; i++) {
    for (const [label, rcs] of i % 2 === 0
      ? [
          ['this', RCS],
          ['other', other],
        ]
      : [
          ['other', other],
          ['this', RCS],
        ]) {
      const r = await run(rcs, label, i);
      const ideal = (r.pages / concurrency) * latencyMs;
      const [load] = (await readFile('/proc/loadavg', 'utf8').catch(() => '?')).split(' ');
      console.log(
        `${label.padEnd(5)} pair ${i + 1}: wall ${sec(r.wallMs)} = ${(r.wallMs / ideal).toFixed(2)}x ideal, CPU ${sec(r.cpuMs)}, peak RSS ${(r.rss / 1048576).toFixed(1)} MB (load ${load})`,
      );
    }
  }
} finally {
  await mock.stop();
  await rm(dir, { recursive: true, force: true });
}
