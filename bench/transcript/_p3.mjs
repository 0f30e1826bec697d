import { pathToFileURL } from 'node:url';
import { makeSrt } from './inputs.mjs';
const ours = await import(pathToFileURL('/work/main/bench/.out/transcript.mjs').href);
const plussub = await import('@plussub/srt-vtt-parser');
const subsrt = (await import('subsrt-ts')).default;
const text = makeSrt(100_000);
const P = { ours: (s) => ours.parseTranscript(s, { emailDomains: ['acme.com'] }), plussub: (s) => plussub.parse(s), subsrt: (s) => subsrt.parse(s, { format: 'srt' }) };
const best = {};
for (let round = 0; round < 30; round++) {
  for (const [n, f] of Object.entries(P)) {
    const t0 = performance.now();
    for (let i = 0; i < 50; i++) f(text);
    const ms = (performance.now() - t0) / 50;
    best[n] = Math.min(best[n] ?? 1e9, ms);
  }
}
console.log(best);
