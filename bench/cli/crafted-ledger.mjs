// `rcs upload --dry-run` over a ledger of N crafted lines, each with a fingerprint salt of its own:
// the ledger trusts one salt (its first line's) and derives one scrypt key, so
// the time stays that of a plain dry run however many salts the file holds.
//
//   npm run build && npx node bench/cli/crafted-ledger.mjs [lines=300] [runs=5]
//
// The mock runs in this process (built package); the time is the wall time of each `rcs` process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockServer } from '../../packages/mock/dist/node.js';

const lines = Number(process.argv[2] ?? 300);
const runs = Number(process.argv[3] ?? 5);
const cli = fileURLToPath(new URL('../../packages/cli/dist/rcs.js', import.meta.url));
const server = await startMockServer({ port: 0, processingMs: 0 });
const rep = server.info.repEmails[0];
const dir = mkdtempSync(join(tmpdir(), 'rcs-bench-ledger-'));
writeFileSync(
  join(dir, 'a.srt'),
  `1\n00:00:01,000 --> 00:00:06,000\n${rep}: What budget do you have?\n\n2\n00:00:06,500 --> 00:00:10,000\nbuyer@client.example: Twenty thousand.\n`,
);
const crafted = Array.from({ length: lines }, (_, i) =>
  JSON.stringify({
    file: 'a.srt',
    sha256: 'a'.repeat(64),
    rep: `email:${rep}`,
    service: server.url,
    credential: `scrypt1.${i.toString(16).padStart(32, '0')}.${'0'.repeat(32)}`,
    status: 'created',
    sessionId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    at: '2026-01-01T00:00:00.000Z',
  }),
);
const env = { ...process.env, RCS_BASE_URL: server.url, RCS_API_KEY: server.info.apiKey };
const time = (ledger) => {
  writeFileSync(join(dir, '.rcs-ledger.jsonl'), ledger);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [cli, 'upload', 'a.srt', '--email', rep, '--dry-run'], {
    cwd: dir,
    env,
  });
  if (r.status !== 0) throw new Error(r.stderr.toString());
  return performance.now() - t0;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const plain = [];
const hostile = [];
for (let i = 0; i < runs; i++) {
  plain.push(time(''));
  hostile.push(time(`${crafted.join('\n')}\n`));
}
console.log(
  `dry run, empty ledger: median ${median(plain).toFixed(0)} ms; with ${lines} crafted salts: median ${median(hostile).toFixed(0)} ms (${runs} runs each)`,
);
await server.close();
