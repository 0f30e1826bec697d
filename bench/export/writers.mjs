// Goal: CSV, JSONL and Parquet writing throughput (records/s) and output size
// with no network, to show that the writer is not the bottleneck. Real-call session records (the widest export: transcripts,
// nested analysis, the items child table) are taken from the mock's demo data, then written
// through the CLI's own encoders and atomic files (sha256, fsync, verify) many times over.
//
//   npm run build && npx node bench/export/writers.mjs [records=200000]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT, requireBuild, startMock } from './lib.mjs';

requireBuild();
const total = Number(process.argv[2] ?? 200_000);

// The writers are internal to the CLI bundle, so bundle them from source for this bench.
const outfile = join(ROOT, 'bench/.out/export-writers/outputs.js');
await build({
  entryPoints: [join(ROOT, 'packages/export/src/outputs.ts')],
  bundle: true,
  splitting: true,
  outdir: join(ROOT, 'bench/.out/export-writers'),
  platform: 'node',
  format: 'esm',
  target: 'node22',
  logLevel: 'error',
});
const { FileOutput } = await import(outfile);

async function samplePage(resource) {
  const mock = await startMock(['--records', '2000']);
  try {
    const res = await fetch(`${mock.url}/api/v1/data-exports/${resource}?page=1&limit=100`, {
      headers: { 'X-API-KEY': mock.apiKey },
    });
    return (await res.json()).data;
  } finally {
    await mock.stop();
  }
}

const samples = {
  'real-call-sessions': await samplePage('real-call-sessions'),
  users: await samplePage('users'),
};
const dir = await mkdtemp(join(tmpdir(), 'rcs-writers-'));
try {
  for (const [resource, page] of Object.entries(samples)) {
    for (const format of ['jsonl', 'csv', 'parquet']) {
      const output = await FileOutput.open(dir, resource, { format, csvRaw: false, bom: false });
      const started = process.hrtime.bigint();
      let written = 0;
      while (written < total) {
        // Distinct objects per page, as pages arriving from the network would be.
        const records = page.map((r, i) => ({ ...r, id: `${r.id.slice(0, 24)}${written + i}` }));
        await output.writePage(records);
        written += records.length;
      }
      const result = await output.finish();
      await output.commit();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const bytes = result.written.bytes + (result.items?.written.bytes ?? 0);
      console.log(
        `${resource.padEnd(19)} ${format.padEnd(5)} ${String(Math.round(written / seconds)).padStart(8)} records/s  (${written} records, ${(bytes / 1e6).toFixed(1)} MB incl. sha256 + fsync)`,
      );
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
