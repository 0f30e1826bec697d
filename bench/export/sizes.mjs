// Output size of the same export in each format. `rcs export all` of the mock's demo
// data (N records over the nine exports) as JSONL, CSV and Parquet; bytes from the manifest (data
// files and the items child table), wall time of each run.
//
//   npm run build && npx node bench/export/sizes.mjs [records=200000]
import { mb, requireBuild, runExport, sec, startMock } from './lib.mjs';

requireBuild();
const records = Number(process.argv[2] ?? 200_000);
const mock = await startMock(['--records', String(records)]);
try {
  for (const format of ['jsonl', 'csv', 'parquet']) {
    const run = await runExport(mock, ['all', '--format', format]);
    const bytes = run.manifest.resources.reduce((n, e) => n + e.bytes + (e.items?.bytes ?? 0), 0);
    const count = run.manifest.resources.reduce((n, e) => n + e.count, 0);
    const sessions = run.manifest.resources.find((e) => e.resource === 'real-call-sessions');
    console.log(
      `${format.padEnd(8)} ${count} records: ${mb(bytes)} in all (real-call-sessions ${mb(sessions.bytes)}), ${sec(run.wallMs)}, peak RSS ${mb(run.rssBytes)}`,
    );
  }
} finally {
  await mock.stop();
}
