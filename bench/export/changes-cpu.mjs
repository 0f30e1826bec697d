// Goal: at 1M records, `rcs export all --format parquet --changes` (the second run,
// which merges with a full previous state) costs at most 50 % more CPU (user + sys, of the `rcs
// export` process alone) than the same export without --changes. The two are alternated
// `pairs` times against one mock in its own process, so the machine's load falls on both alike.
//
//   npm run build && npx node bench/export/changes-cpu.mjs [records=1000000] [pairs=2] [format=parquet]
import { requireBuild, runExport, sec, startMock } from './lib.mjs';

requireBuild();
const records = Number(process.argv[2] ?? 1_000_000);
const pairs = Number(process.argv[3] ?? 2);
const format = process.argv[4] ?? 'parquet';
const cpu = (r) => `${sec(r.cpuMs)} CPU (user + sys), ${sec(r.wallMs)} wall`;

const mock = await startMock(['--records', String(records)]);
const ratios = [];
try {
  for (let i = 0; i < pairs; i++) {
    const plain = await runExport(mock, ['all', '--format', format]);
    const changes = await runExport(mock, ['all', '--format', format, '--changes'], { repeat: 2 });
    const count = plain.manifest.resources.reduce((n, e) => n + e.count, 0);
    ratios.push(changes.cpuMs / plain.cpuMs);
    console.log(
      `${count} records, ${format}: without --changes ${cpu(plain)}; --changes (2nd run) ${cpu(changes)}: ${(changes.cpuMs / plain.cpuMs).toFixed(2)}x`,
    );
  }
} finally {
  await mock.stop();
}
const worst = Math.max(...ratios);
console.log(
  `--changes adds ${Math.round((worst - 1) * 100)} % CPU at worst (goal: at most 50 %): ${worst <= 1.5 ? 'met' : 'NOT met'}`,
);
