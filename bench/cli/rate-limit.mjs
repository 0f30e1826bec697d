// Under a rate limit: `rcs export all` and a 200-file batch upload against
// `rcs mock --rate-limit 20` (a real mock process, fixed one-second windows per D2). Reports the
// requests sent, the share answered 429, and the accepted rate against the allowed 20/s.
// Goal: at most 3 % answered 429, at least 85 % of the allowed rate.
//
//   npm run build && npx node bench/cli/rate-limit.mjs [runs=3] [limit=20]
//
// `--verbose` logs one `-> STATUS` line per answer, which is how answers are counted. The
// accepted rate is (answers that were not 429) / (wall time of the command, start-up excluded:
// from the first to the last answer line it is no fairer, so the whole run is used).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 3);
const limit = Number(process.argv[3] ?? 20);
const cli = fileURLToPath(new URL('../../packages/cli/dist/rcs.js', import.meta.url));

/** Starts `rcs mock` and resolves with its URL and API key (first lines of its stdout). */
function startMock() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      cli,
      'mock',
      '--port',
      '0',
      '--rate-limit',
      String(limit),
      '--records',
      '20000',
      '--processing-ms',
      '0',
    ]);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const url = /^(http:\/\/\S+)/m.exec(out)?.[1];
      const key = /API key: (\S+)/.exec(out)?.[1];
      const rep = /Rep emails: ([^,\s]+)/.exec(out)?.[1];
      if (url && key && rep) resolve({ child, url, key, rep });
    });
    child.on('error', reject);
  });
}

function run(args, env, cwd) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cli, '--verbose', ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = (performance.now() - t0) / 1000;
      const statuses = [...err.matchAll(/ -> (\d{3})(?: \(request id [^)]*\))?$/gm)].map(
        (m) => m[1],
      );
      const limited = statuses.filter((s) => s === '429').length;
      resolve({
        code,
        seconds,
        total: statuses.length,
        limited,
        accepted: statuses.length - limited,
      });
    });
  });
}

function row(name, r) {
  const share = (100 * r.limited) / r.total;
  const rate = r.accepted / r.seconds;
  return `| ${name} | ${r.code} | ${r.total} | ${r.limited} (${share.toFixed(1)} %) | ${r.seconds.toFixed(2)} s | ${rate.toFixed(1)}/s (${((100 * rate) / limit).toFixed(0)} %) |`;
}

console.log(`| command | exit | requests | answered 429 | wall | accepted rate (of ${limit}/s) |`);
console.log('|---|---|---|---|---|---|');
for (let i = 0; i < runs; i++) {
  const mock = await startMock();
  const env = { RCS_BASE_URL: mock.url, RCS_API_KEY: mock.key };
  const dir = mkdtempSync(join(tmpdir(), 'rcs-bench-rl-'));
  console.log(row('export all', await run(['export', 'all', '--out', 'out'], env, dir)));
  // A fresh window for the upload.
  await new Promise((r) => setTimeout(r, 1_500));
  const files = [];
  for (let f = 0; f < 200; f++) {
    const name = `c${f}.srt`;
    writeFileSync(
      join(dir, name),
      `1\n00:00:01,000 --> 00:00:06,000\n${mock.rep}: Call ${f} of ${i}: what budget do you have?\n\n2\n00:00:06,500 --> 00:00:10,000\nbuyer@client.example: Twenty thousand; our CFO decides.\n`,
    );
    files.push(name);
  }
  console.log(
    row('upload 200 files', await run(['upload', ...files, '--email', mock.rep], env, dir)),
  );
  mock.child.kill('SIGTERM');
}
