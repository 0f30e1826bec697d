// Peak RSS of `rcs export all` when the process is given a memory limit, as a container or a
// systemd unit gives one ("peak RSS of export all JSONL at 1M records ≤ 180 MB").
//
// `rcs` sets no V8 flags (the run-time flags of export/heap.ts were removed). V8 sizes its
// heap from the memory the process may use: Node passes libuv's constrained memory (the cgroup's
// limit) to V8's ConfigureDefaults, so under a limit the young generation stays small and the old
// generation is collected sooner. Without a limit, on a machine with gigabytes free, V8 lets the
// heap grow because it may: a loop that does nothing but fetch and parse the same pages peaks
// near the same figure as `rcs` (fetch-floor.mjs, printed below).
//
// Each limit runs the CLI in a fresh memory cgroup (v1 `memory.limit_in_bytes` or v2
// `memory.max`): root and a writable cgroup hierarchy are needed; without them the bench says so
// and exits 2. The first row is the CLI without a limit.
//
//   npm run build && npx node bench/export/memory-limited.mjs [records=1000000] [limits MB=256,160] [format=jsonl]
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bareLoop, mb, requireBuild, runExport, sec, startMock } from './lib.mjs';

requireBuild();
const records = Number(process.argv[2] ?? 1_000_000);
const limits = (process.argv[3] ?? '256,160').split(',').map(Number);
const format = process.argv[4] ?? 'jsonl';

/** The memory cgroup this process is in, and how a limit is written there (v2 or v1). */
function cgroupParent() {
  const lines = readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n');
  const v1 = lines.map((l) => l.split(':')).find(([, controllers]) => controllers === 'memory');
  if (v1 && existsSync('/sys/fs/cgroup/memory')) {
    return { dir: join('/sys/fs/cgroup/memory', v1[2]), limitFile: 'memory.limit_in_bytes' };
  }
  const v2 = lines.find((l) => l.startsWith('0::'));
  if (v2 && existsSync('/sys/fs/cgroup/cgroup.controllers')) {
    return { dir: join('/sys/fs/cgroup', v2.slice(3)), limitFile: 'memory.max' };
  }
  return undefined;
}

function makeCgroup(limitMb) {
  const parent = cgroupParent();
  if (!parent) throw new Error('no memory cgroup hierarchy found');
  const dir = join(parent.dir, `rcs-bench-${process.pid}-${limitMb}`);
  mkdirSync(dir);
  writeFileSync(join(dir, parent.limitFile), String(limitMb * 1024 * 1024));
  return {
    // The shell moves itself into the cgroup, then becomes the CLI (same pid, same limit).
    prefix: ['sh', '-c', `echo $$ > ${join(dir, 'cgroup.procs')} && exec "$@"`, 'sh'],
    remove: () => rmdirSync(dir),
  };
}

try {
  makeCgroup(limits[0]).remove();
} catch (error) {
  console.error(`memory-limited: cannot make a memory cgroup here (${error.message}); run as root`);
  process.exit(2);
}

const mock = await startMock(['--records', String(records)]);
try {
  const floor = await bareLoop(mock);
  console.log(`bare fetch-and-parse loop, no limit: peak RSS ${mb(floor.rssBytes)}`);
  for (const limit of [undefined, ...limits]) {
    const group = limit === undefined ? undefined : makeCgroup(limit);
    try {
      const run = await runExport(mock, ['all', '--format', format], {
        prefix: group?.prefix ?? [],
      });
      const count = run.manifest.resources.reduce((n, e) => n + e.count, 0);
      console.log(
        `${limit === undefined ? 'no limit' : `limit ${limit} MB`}: ${count} records (${format}), peak RSS ${mb(run.rssBytes)}, CPU ${sec(run.cpuMs)}, wall ${sec(run.wallMs)}`,
      );
    } finally {
      group?.remove();
    }
  }
} finally {
  await mock.stop();
}
