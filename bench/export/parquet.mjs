// Parquet as a warehouse would write it, at a size that matters. For one mock of N
// records: `rcs export all` as JSONL, as Parquet, and as Parquet with --changes (the second run
// into the same directory, merging with a full previous state); for each, CPU time (user +
// system, from the process itself), peak RSS and wall time; for Parquet, each file's row groups
// and footer size as the manifest and the file state them.
//
//   npm run build && npx node bench/export/parquet.mjs [records=1000000] [--no-changes] [extra rcs flags...]
// `--no-changes` skips the --changes runs (e.g. `--no-changes --compression zstd`: JSONL vs zstd).
import { mb, requireBuild, runExport, sec, startMock } from './lib.mjs';

requireBuild();
const records = Number(process.argv[2] ?? 1_000_000);
const noChanges = process.argv.includes('--no-changes');
const extra = process.argv.slice(3).filter((a) => a !== '--no-changes');
const mock = await startMock(['--records', String(records)]);
try {
  const runs = [
    ['jsonl', ['all', '--format', 'jsonl'], 1],
    ['parquet', ['all', '--format', 'parquet', ...extra], 1],
    ['parquet --changes (2nd run)', ['all', '--format', 'parquet', '--changes', ...extra], 2],
  ].slice(0, noChanges ? 2 : 3);
  const results = {};
  for (const [name, args, repeat] of runs) {
    const run = await runExport(mock, args, { repeat });
    results[name] = run;
    console.log(
      `${name.padEnd(28)} CPU ${sec(run.cpuMs)}  peak RSS ${mb(run.rssBytes)}  wall ${sec(run.wallMs)}`,
    );
  }
  const jsonl = results.jsonl.cpuMs;
  const changes = results['parquet --changes (2nd run)'];
  console.log(
    `CPU parquet / jsonl: ${(results.parquet.cpuMs / jsonl).toFixed(2)}x (goal <= 1.5x; zstd <= 1.35x)${changes ? `; parquet --changes / parquet: ${(changes.cpuMs / results.parquet.cpuMs).toFixed(2)}x (goal <= 1.5x)` : ''}`,
  );
  const { manifest, parquetFooters } = results.parquet;
  for (const entry of manifest.resources) {
    for (const file of [entry, entry.items].filter(Boolean)) {
      const groups = file.parquet.rowGroups.rows;
      console.log(
        `${file.file.padEnd(36)} ${String(file.count).padStart(8)} rows, ${String(groups.length).padStart(3)} row groups (${groups.slice(0, 3).join(', ')}${groups.length > 3 ? ', ...' : ''}), ${mb(file.bytes)}, footer ${(parquetFooters[file.file] / 1024).toFixed(1)} KB`,
      );
    }
  }
} finally {
  await mock.stop();
}
