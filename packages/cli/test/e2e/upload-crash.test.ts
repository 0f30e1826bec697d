import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  labeledCall,
  type MockProcess,
  readLedger,
  runCli,
  sessionsWith,
  startMock,
  tempDir,
} from './helpers.js';

// Exactly once under crashes (D28): `rcs upload` of a batch is killed (SIGKILL) at every
// commit point of its ledger (just before and just after each write and each fsync: the intent
// line before the create POST, the outcome written over it after the answer), then run again to
// completion; every file must then have exactly one session on the service, counted through the
// sessions export. The points are found by tracing a run with the LD_PRELOAD shim of the crash
// tests (test/support/crash-at.c, built here with `cc`), the same shim that kills the process.

const SHIM_SOURCE = fileURLToPath(new URL('../support/crash-at.c', import.meta.url));
const LEDGER = '.rcs-ledger.jsonl';
const FILES = ['a.srt', 'b.srt'];

let shim = '';
const mocks: MockProcess[] = [];

beforeAll(() => {
  assertBuilt();
  if (process.platform !== 'linux')
    throw new Error('the crash test needs Linux (LD_PRELOAD, /proc)');
  shim = join(tempDir('rcs-crash-shim-'), 'crash-at.so');
  execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', shim, SHIM_SOURCE, '-ldl']);
});
afterAll(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.stop()));
});

/** A fresh folder with the batch's files; texts distinct per `round` (one mock serves all rounds). */
function batch(rep: string, round: number): { dir: string; texts: string[] } {
  const dir = tempDir('rcs-crash-');
  const texts = FILES.map((f, i) => {
    const text = labeledCall(rep, 10_000 + round * 10 + i);
    writeFileSync(join(dir, f), text);
    return text;
  });
  return { dir, texts };
}

/** The shim's settings: every write, fsync and rename of the ledger is a commit point. */
const LEDGER_POINTS = { CRASH_CALLS: 'write,fsync,rename', CRASH_FILE: `/${LEDGER}` };

function upload(m: MockProcess, dir: string, env: Record<string, string> = {}) {
  return runCli(['upload', ...FILES, '--email', m.repEmails[0] ?? '', '--concurrency', '1'], {
    cwd: dir,
    env: { ...m.env, ...env },
  });
}

/** Runs the batch again until it says it is complete (a lost answer may need one more run). */
async function toCompletion(m: MockProcess, dir: string) {
  for (let run = 1; ; run++) {
    const r = await upload(m, dir);
    if (r.code === 0 || run === 3) return r;
  }
}

describe('rcs upload killed at every commit point of its ledger', () => {
  it.each([
    ['a service that answers', []],
    ['a service whose create answers are lost half of the time', ['--drop-after-create', '0.5']],
  ])(
    '%s: each file ends with exactly one session',
    async (_name, mockArgs) => {
      const m = await startMock(['--processing-ms', '0', ...mockArgs]);
      mocks.push(m);
      const rep = m.repEmails[0] ?? '';

      // Trace: where the commit points of a whole batch are.
      const traced = batch(rep, 0);
      const trace = join(traced.dir, 'trace.txt');
      const clean = await upload(m, traced.dir, {
        ...LEDGER_POINTS,
        LD_PRELOAD: shim,
        CRASH_TRACE: trace,
      });
      expect(clean.signal).toBeNull();
      const calls = existsSync(trace) ? readFileSync(trace, 'utf8').trim().split('\n') : [];
      // Per file at least: the intent line (write, fsync) and its outcome (write, fsync).
      expect(calls.length).toBeGreaterThanOrEqual(FILES.length * 4);
      expect(calls.join('\n')).toMatch(/ fsync$/m);
      // Every point: just before and just after each call.
      const points = calls.flatMap((call) =>
        (['before', 'after'] as const).map((when) => ({ call, when })),
      );

      for (let at = 0; at < points.length; at++) {
        const { dir, texts } = batch(rep, at + 1);
        const point = points[at]!;
        const killed = await upload(m, dir, {
          ...LEDGER_POINTS,
          LD_PRELOAD: shim,
          CRASH_AT: point.call.split(' ')[0]!,
          CRASH_WHEN: point.when,
        });
        const where = `killed ${point.when} call ${point.call}`;
        // With lost answers, a run may stop early (every later point moves), so a run that ended on
        // its own is fine there; with a service that answers, every point is reached.
        if (mockArgs.length === 0) expect(killed.signal, where).toBe('SIGKILL');
        const done = await toCompletion(m, dir);
        expect(done.code, `${where}; then: ${done.stderr}`).toBe(0);
        expect(await sessionsWith(m, texts), where).toEqual(texts.map(() => 1));
        // Every file is recorded with the session the service holds.
        const created = readLedger(join(dir, LEDGER)).filter((e) => e.status === 'created');
        expect(new Set(created.map((e) => e.file)), where).toEqual(new Set(FILES));
      }
    },
    1_800_000,
  );
});
