/**
 * Crash injection (ARCHITECTURE.md "A crash at any instant"): `rcs export all
 * --format parquet --changes`, run by examples/warehouse/nightly-load.mjs, is SIGKILLed at every
 * file-system commit point of its run (each rename and each fsync from the last fsync before the
 * commit to the end, found by tracing a clean run with an LD_PRELOAD shim built here with `cc`),
 * while the service's data changes between nights. The next night then runs to completion, and
 * for every crash point the DuckDB warehouse equals the service's data, no change lost, and the
 * loads recorded in the warehouse form one chain (each merge starts from the run before it: no
 * change applied twice).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_API_KEY, hostileFixture } from '../support/hostile-fixture.js';
import { difference, equalEverywhere, loadsOf } from '../support/warehouse-diff.js';
import { assertBuilt, forcedCli, REPO, runCommand, tempDir } from './helpers.js';

const SCRIPT = join(REPO, 'examples/warehouse/nightly-load.mjs');
const SHIM_SOURCE = join(REPO, 'packages/cli/test/support/crash-at.c');
const hasCc = (() => {
  try {
    execFileSync('cc', ['--version'], { stdio: 'ignore' });
    return process.platform === 'linux';
  } catch {
    return false;
  }
})();

/** Night 2's data: inserts, updates and deletes against night 1's. */
function changedOnce() {
  const fixture = hostileFixture();
  const org = fixture.organizations[0]!;
  org.teams.push({ ...org.teams[0]!, id: 'ffffffff-3c1a-4f59-9d5e-2a7b6c8d9e01', name: 'New' });
  org.users[1]!.lastName = 'Changed';
  org.missionAssignments.splice(0, 3);
  org.realCallSessions.splice(1, 1);
  return fixture;
}

/** Night 3's data: night 2's changes kept, and more on top. */
function changedTwice() {
  const fixture = changedOnce();
  const org = fixture.organizations[0]!;
  org.users[4]!.firstName = 'Again';
  org.teams[1]!.name = 'Renamed';
  org.teams.push({ ...org.teams[0]!, id: 'eeeeeeee-3c1a-4f59-9d5e-2a7b6c8d9e01', name: 'Newer' });
  return fixture;
}

describe.skipIf(!hasCc)(
  'crash injection: rcs export --changes killed at every commit point',
  () => {
    let root: string;
    let shim: string;
    const mocks: MockServer[] = [];
    let night1: MockServer;
    let night2: MockServer;
    let night3: MockServer;
    /** A directory after night 1: the export directory and the warehouse. */
    let template: string;
    /** `rcs` with `--force` after the example's flags (forcedCli). */
    let forced: string;

    const nightly = (mock: MockServer, cwd: string, crash: Record<string, string> = {}) => {
      const env = Object.entries(crash).map(([k, v]) => `${k}=${v}`);
      const bin = env.length > 0 ? `env LD_PRELOAD=${shim} ${env.join(' ')} ` : '';
      return runCommand(process.execPath, [SCRIPT, 'export', 'warehouse.duckdb'], {
        cwd,
        env: {
          RCS_BASE_URL: mock.url,
          RCS_API_KEY: HOSTILE_API_KEY,
          RCS_BIN: `${bin}${process.execPath} ${forced}`,
        },
      });
    };

    beforeAll(async () => {
      assertBuilt();
      root = tempDir('rcs-export-crash-');
      shim = join(root, 'crash-at.so');
      forced = forcedCli();
      execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', shim, SHIM_SOURCE, '-ldl']);
      night1 = await startMockServer({ port: 0, fixture: hostileFixture() });
      night2 = await startMockServer({ port: 0, fixture: changedOnce() });
      night3 = await startMockServer({ port: 0, fixture: changedTwice() });
      mocks.push(night1, night2, night3);
      template = join(root, 'template');
      mkdirSync(template);
      const first = await nightly(night1, template);
      expect(first.code, first.stderr).toBe(0);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(mocks.map((m) => m.close()));
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('for every crash point, the next night leaves the warehouse equal to the service, each change applied once', async () => {
      // Trace a clean night 2 to find the commit points and their order.
      const traced = join(root, 'traced');
      cpSync(template, traced, { recursive: true });
      const trace = join(root, 'trace.txt');
      const clean = await nightly(night2, traced, { CRASH_TRACE: trace });
      expect(clean.code, clean.stderr).toBe(0);
      const calls = readFileSync(trace, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(' ')[1]!);
      const firstRename = calls.findIndex((c) => c.startsWith('rename'));
      expect(firstRename).toBeGreaterThan(0);
      // 1-based call numbers: the lock's fsync, the last fsync before the first rename (all the
      // fsyncs before it leave the directory as it was, like this one), then every call to the end.
      const points = [
        1,
        ...Array.from({ length: calls.length - firstRename + 1 }, (_, i) => firstRename + i),
      ];

      /** One crash point: night 2 killed there, then night 3 to completion; what went wrong. */
      const crashAndRecover = async (n: number, when: 'before' | 'after') => {
        const cwd = join(root, `crash-${n}-${when}`);
        cpSync(template, cwd, { recursive: true });
        try {
          const crashed = await nightly(night2, cwd, { CRASH_AT: String(n), CRASH_WHEN: when });
          // The export was killed: the load merges nothing that night.
          expect(crashed.code, crashed.stdout).not.toBe(0);
          expect(crashed.stderr).toMatch(/rcs export failed .*nothing merged/);
          const next = await nightly(night3, cwd);
          expect(next.code, next.stderr).toBe(0);
          const diff = await difference(join(cwd, 'warehouse.duckdb'), join(cwd, 'export'));
          equalEverywhere(diff);
          expect(diff['teams rows']![0]).toBe(changedTwice().organizations[0]!.teams.length);
          // One chain of loads: night 1, then night 3 merged from exactly night 1's run.
          const loads = await loadsOf(join(cwd, 'warehouse.duckdb'));
          expect(loads).toHaveLength(2);
          expect(loads[1]).toMatchObject({ base: loads[0]!.run_id, mode: 'merge' });
          expect(existsSync(join(cwd, 'export', '.rcs-export.lock'))).toBe(false);
          return undefined;
        } catch (error) {
          return `crash at call ${n} (${calls[n - 1]}, ${when}): ${(error as Error).message}`;
        } finally {
          rmSync(cwd, { recursive: true, force: true });
        }
      };
      // A few crash points at once (each is three processes in a row, mostly waiting).
      const queue = [
        ...points.map((p) => [p, 'before'] as const),
        [calls.length, 'after'] as const,
      ];
      const failures: string[] = [];
      await Promise.all(
        Array.from({ length: 3 }, async () => {
          for (let next = queue.shift(); next; next = queue.shift()) {
            const failure = await crashAndRecover(next[0], next[1]);
            if (failure) failures.push(failure);
          }
        }),
      );
      expect(failures).toEqual([]);
    }, 1_500_000);
  },
);
