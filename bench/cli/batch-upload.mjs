// Batch upload of N transcripts with --wait against the mock with 50 ms latency and 2 s
// processing: wall time against the ideal for the chosen concurrency, and GET polls
// per session (the client's backoff, not hammering).
//
//   npm run build && npx node bench/cli/batch-upload.mjs [files=1000] [concurrency=50]
//
// The mock runs in this process (built package); `rcs upload --verbose` logs one line per
// request, which is how requests are counted.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockServer } from '../../packages/mock/dist/node.js';

const files = Number(process.argv[2] ?? 1000);
const concurrency = Number(process.argv[3] ?? 50);
const LATENCY_MS = 50;
const PROCESSING_MS = 2000;
const cli = fileURLToPath(new URL('../../packages/cli/dist/rcs.js', import.meta.url));

const server = await startMockServer({
  port: 0,
  processingMs: PROCESSING_MS,
  faults: { latencyMs: LATENCY_MS },
});
const rep = server.info.repEmails[0];
const dir = mkdtempSync(join(tmpdir(), 'rcs-bench-'));
mkdirSync(join(dir, 'calls'));
for (let i = 0; i < files; i++) {
  writeFileSync(
    join(dir, 'calls', `call-${String(i).padStart(5, '0')}.srt`),
    `1\n00:00:01,000 --> 00:00:06,000\n${rep}: Call ${i}: what budget do you have, and who makes the decision?\n\n2\n00:00:06,500 --> 00:00:10,000\nbuyer@client.example: Twenty thousand; our CFO decides.\n\n3\n00:00:10,500 --> 00:00:14,000\n${rep}: Then the next step is a follow up in the calendar.\n`,
  );
}

const t0 = performance.now();
const result = await new Promise((resolve, reject) => {
  const child = spawn(
    process.execPath,
    [
      cli,
      'upload',
      'calls',
      '--email',
      rep,
      '--wait',
      '--json',
      '--verbose',
      '--concurrency',
      String(concurrency),
    ],
    {
      cwd: dir,
      env: {
        ...process.env,
        RCS_BASE_URL: server.url,
        RCS_API_KEY: server.info.apiKey,
        NO_COLOR: '1',
      },
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  child.on('error', reject);
  child.on('close', (code) => resolve({ code, out, err }));
});
const wallMs = performance.now() - t0;
await server.close();

const lines = result.out
  .trim()
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const done = lines.filter((l) => l.session?.state === 'DONE').length;
const posts = (result.err.match(/POST \S+ -> 201/g) ?? []).length;
const gets = (result.err.match(/GET \S+real-call-sessions\/\S+ -> \d+/g) ?? []).length;
const retries = (result.err.match(/retrying/g) ?? []).length;
// Ideal: every upload slot does create (one round trip) + processing + one read that sees DONE.
const perSessionMs = LATENCY_MS + PROCESSING_MS + LATENCY_MS;
const idealMs = Math.ceil(files / concurrency) * perSessionMs;
console.log(
  `files ${files}, concurrency ${concurrency}, mock latency ${LATENCY_MS} ms, processing ${PROCESSING_MS} ms`,
);
console.log(
  `exit ${result.code}; DONE sessions ${done}/${files}; creates ${posts}; retries ${retries}`,
);
console.log(
  `wall ${(wallMs / 1000).toFixed(1)} s; ideal ${(idealMs / 1000).toFixed(1)} s; ratio ${(wallMs / idealMs).toFixed(2)}x`,
);
console.log(`poll GETs per session ${(gets / files).toFixed(2)} (total ${gets})`);
