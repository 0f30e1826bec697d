// Goal: 200,000 records across the nine exports, mock over loopback with 50 ms latency
// per request: wall time within 1.2x of pages ÷ concurrency × latency, and at least 6x faster
// than a sequential page loop over the same data, measured in the same run.
//
//   npm run build && npx node bench/export/latency.mjs [records=200000] [latencyMs=50] [concurrency=8] [format=jsonl]
// With `parquet` (D27's streaming writer), the export writes Parquet: its goal is <= 1.25x.
import { requireBuild, runExport, sec, sequentialPageLoop, startMock } from './lib.mjs';

requireBuild();
const records = Number(process.argv[2] ?? 200_000);
const latencyMs = Number(process.argv[3] ?? 50);
const concurrency = Number(process.argv[4] ?? 8);
const format = process.argv[5] ?? 'jsonl';

const mock = await startMock(['--records', String(records), '--latency-ms', String(latencyMs)]);
try {
  const { EXPORT_TABLE } = await import('../../packages/client/dist/index.js');
  const exp = await runExport(mock, [
    'all',
    '--concurrency',
    String(concurrency),
    '--format',
    format,
  ]);
  const pages = exp.manifest.resources.reduce((n, e) => n + e.pages, 0);
  const count = exp.manifest.resources.reduce((n, e) => n + e.count, 0);
  const ideal = (pages / concurrency) * latencyMs;
  const seq = await sequentialPageLoop(
    mock,
    EXPORT_TABLE.map((e) => e.path),
  );
  if (seq.records !== count)
    throw new Error(`sequential read ${seq.records} records, export ${count}`);
  console.log(`records (all nine)         ${count}`);
  console.log(`pages                      ${pages}`);
  console.log(`latency / concurrency      ${latencyMs} ms / ${concurrency}`);
  console.log(`ideal pages÷conc×latency   ${sec(ideal)}`);
  console.log(
    `rcs export all ${format.padEnd(7)}(wall) ${sec(exp.wallMs)}  = ${(exp.wallMs / ideal).toFixed(2)}x ideal (goal <= ${format === 'parquet' ? '1.25' : '1.2'}x)`,
  );
  console.log(
    `sequential page loop       ${sec(seq.wallMs)}  = ${(seq.wallMs / exp.wallMs).toFixed(1)}x slower than rcs export (goal >= 6x)`,
  );
} finally {
  await mock.stop();
}
