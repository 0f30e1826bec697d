// Profiling helper: parses the bench inputs repeatedly with our parser only.
//   npx node --cpu-prof --cpu-prof-dir=bench/.out bench/transcript/profile.mjs [100k|10mb]
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeSrt } from './inputs.mjs';

const ours = await import(
  pathToFileURL(join(import.meta.dirname, '..', '.out', 'transcript.mjs')).href
);
const which = process.argv[2] ?? '100k';
const text = which === '10mb' ? makeSrt(10 * 1024 * 1024) : makeSrt(100_000);
const runs = which === '10mb' ? 20 : 2000;
const t0 = performance.now();
for (let i = 0; i < runs; i++) ours.parseTranscript(text, { emailDomains: ['acme.com'] });
const ms = (performance.now() - t0) / runs;
console.log(
  `${which}: ${ms.toFixed(3)} ms/parse, ${(Buffer.byteLength(text) / 1048576 / (ms / 1000)).toFixed(1)} MB/s`,
);
