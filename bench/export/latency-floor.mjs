// The floor under the latency goal (≤ 1.10× pages ÷ concurrency × latency): the same
// pages as `rcs export all`, read by the least an exporter can be, each in a fresh process timed
// from spawn to exit as latency.mjs times `rcs export`, alternated with `rcs export all` itself:
//
//   read        node:http with keep-alive, N at a time, bodies dropped (no exporter is faster)
//   parse       … and JSON.parse of each page
//   write-bytes … the bodies written to one file as they come (no parse), fsync at the end
//   write-jsonl … parse, one JSON.stringify per record, written and fsynced: a minimal exporter
//                 with no de-duplication, no checks, no hashing, no SDK
//   rcs         `rcs export all --concurrency N` (the built CLI)
//
//   npm run build && npx node bench/export/latency-floor.mjs [records=200000] [latencyMs=50] [concurrency=32] [rounds=3]
import { spawn } from 'node:child_process';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RCS, requireBuild, startMock } from './lib.mjs';

// In a child: `latency-floor.mjs --loop MODE JOBS_FILE OUT_FILE API_KEY CONCURRENCY`.
if (process.argv[2] === '--loop') {
  await loop(...process.argv.slice(3));
  process.exit(0);
}

requireBuild();
const records = Number(process.argv[2] ?? 200_000);
const latencyMs = Number(process.argv[3] ?? 50);
const concurrency = Number(process.argv[4] ?? 32);
const rounds = Number(process.argv[5] ?? 3);
const MODES = ['read', 'parse', 'write-bytes', 'write-jsonl', 'rcs'];
const LOOP = fileURLToPath(import.meta.url);

async function loop(mode, jobsFile, outFile, apiKey, n) {
  const jobs = JSON.parse(await readFile(jobsFile, 'utf8'));
  const agent = new http.Agent({ keepAlive: true });
  const file = mode.startsWith('write') ? await open(outFile, 'w') : undefined;
  const get = (url) =>
    new Promise((resolve, reject) => {
      http
        .get(url, { agent, headers: { 'X-API-KEY': apiKey } }, (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks)));
          res.on('error', reject);
        })
        .on('error', reject);
    });
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const body = await get(jobs[next++]);
      if (mode === 'read') continue;
      if (mode === 'write-bytes') {
        await file.write(body);
        continue;
      }
      const page = JSON.parse(body.toString('utf8'));
      if (mode === 'parse') continue;
      let text = '';
      for (const record of page.data) text += `${JSON.stringify(record)}\n`;
      await file.write(text);
    }
  };
  await Promise.all(Array.from({ length: Number(n) }, worker));
  if (file) {
    await file.sync();
    await file.close();
  }
  agent.destroy();
}

function timed(args, env) {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    child.on('exit', (code) =>
      code === 0
        ? resolve(Number(process.hrtime.bigint() - started) / 1e6)
        : reject(new Error(`${args.join(' ')} exited with ${code}`)),
    );
  });
}

const mock = await startMock(['--records', String(records), '--latency-ms', String(latencyMs)]);
const dir = await mkdtemp(join(tmpdir(), 'rcs-latency-floor-'));
try {
  const { EXPORT_TABLE } = await import('../../packages/client/dist/index.js');
  // Every page of the nine exports, as `rcs export all` reads them (100 records a page, D7).
  const jobs = [];
  for (const { path } of EXPORT_TABLE) {
    const res = await fetch(`${mock.url}${path}?page=1&limit=100`, {
      headers: { 'X-API-KEY': mock.apiKey },
    });
    const { meta } = await res.json();
    const pages = Math.max(1, Math.ceil(meta.total / 100));
    for (let page = 1; page <= pages; page++)
      jobs.push(`${mock.url}${path}?page=${page}&limit=100`);
  }
  const jobsFile = join(dir, 'jobs.json');
  await writeFile(jobsFile, JSON.stringify(jobs));
  const ideal = (jobs.length / concurrency) * latencyMs;
  const times = new Map(MODES.map((m) => [m, []]));
  for (let round = 0; round < rounds; round++) {
    for (const mode of MODES) {
      const out = join(dir, `out-${round}-${mode}`);
      const ms =
        mode === 'rcs'
          ? await timed(
              [RCS, 'export', 'all', '--concurrency', String(concurrency), '--out', out],
              {
                ...process.env,
                RCS_BASE_URL: mock.url,
                RCS_API_KEY: mock.apiKey,
              },
            )
          : await timed(
              [LOOP, '--loop', mode, jobsFile, out, mock.apiKey, String(concurrency)],
              process.env,
            );
      times.get(mode).push(ms);
      await rm(out, { recursive: true, force: true });
    }
  }
  console.log(
    `${jobs.length} pages, ${latencyMs} ms latency, concurrency ${concurrency}: ideal ${(ideal / 1000).toFixed(2)} s; ${rounds} alternated rounds`,
  );
  for (const [mode, list] of times) {
    const ratios = list.map((ms) => (ms / ideal).toFixed(2)).join(' ');
    const best = Math.min(...list);
    console.log(
      `${mode.padEnd(12)} best ${(best / 1000).toFixed(2)} s = ${(best / ideal).toFixed(2)}x   (all: ${ratios})`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
  await mock.stop();
}
