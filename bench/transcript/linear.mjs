// Adversarial shapes for the detectors and parsers: each timed at 80,000 characters and at four
// times that, so a quadratic path shows as a ratio near 16 (linear: near 4). The answers are
// asserted in packages/transcript/test/linear.test.ts; this measures only.
//   npx node bench/transcript/linear.mjs
import { pathToFileURL } from 'node:url';
import { buildBundle } from './build-bundle.mjs';

const t = await import(pathToFileURL(await buildBundle()).href);
const request = (transcript) => ({ transcript, meetingName: 'Call', email: 'rep@acme.com' });

/** name → [make(n), run(text)] */
const cases = {
  'lookalike: n spaces, then `x,y` and a row': [
    (n) => `${' '.repeat(n)}x,y\n1,2\n`,
    (s) => t.lookalike(s),
  ],
  'prevalidateUpload: n spaces, then `x,y` and a row': [
    (n) => `${' '.repeat(n)}x,y\n1,2\n`,
    (s) => t.prevalidateUpload(request(s)),
  ],
  'lookalike: header `a,` + n spaces + `x`, a row': [
    (n) => `a,${' '.repeat(n)}x\n1,2\n`,
    (s) => t.lookalike(s),
  ],
  'lookalike: n U+2028, then `x,y` and a row': [
    (n) => `${'\u2028'.repeat(n)}x,y\n1,2\n`,
    (s) => t.lookalike(s),
  ],
  "lookalike: `<a>` and n/4 lines '</a '": [
    (n) => `<a>\n${'</a \n'.repeat(n / 5)}`,
    (s) => t.lookalike(s),
  ],
  "importTranscript (teams-vtt): a voice name of n '&'": [
    (n) => `WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v ${'&'.repeat(n)}>hi\n`,
    (s) => t.importTranscript(s, { source: 'teams-vtt' }),
  ],
  "importTranscript (teams-docx-legacy): n '&'": [
    (n) => '&'.repeat(n),
    (s) => t.importTranscript(s, { source: 'teams-docx-legacy' }),
  ],
  'importTranscript (otter-txt): n/6 lines before the first turn': [
    (n) => `${'Title\n'.repeat(n / 6)}Ana  0:01\nhi\n`,
    (s) => t.importTranscript(s, { source: 'otter-txt' }),
  ],
};

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(make, run, n) {
  const text = make(n);
  run(text); // warm-up
  const ms = [];
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    run(text);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(ms);
}

console.log('| input | ms at 80,000 | ms at 320,000 | ratio (linear ≈ 4) |');
console.log('|---|---:|---:|---:|');
for (const [name, [make, run]] of Object.entries(cases)) {
  const a = time(make, run, 80_000);
  const b = time(make, run, 320_000);
  console.log(`| ${name} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(b / a).toFixed(1)} |`);
}
