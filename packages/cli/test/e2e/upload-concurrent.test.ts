import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  assertBuilt,
  labeledCall,
  type MockProcess,
  readLedger,
  runCli,
  sessionsWith,
  startCli,
  startMock,
  tempDir,
} from './helpers.js';

// Exactly once across processes (D28): three `rcs upload` of the same batch started together in
// one directory, against one real `rcs mock`, leave exactly one session per file, counted in the
// sessions export; and so they do when runs are killed (SIGKILL) mid-way, between sending an
// upload and recording it, by the crash tests' LD_PRELOAD shim (test/support/crash-at.c).

vi.setConfig({ testTimeout: 300_000 });
const SHIM_SOURCE = fileURLToPath(new URL('../support/crash-at.c', import.meta.url));
const FILES = ['call1.srt', 'call2.srt', 'call3.srt', 'call4.srt'];
const RUNS = 3;
let m: MockProcess;
let shim = '';
beforeAll(async () => {
  assertBuilt();
  // Answers take a while, so that the runs overlap for real.
  m = await startMock(['--processing-ms', '0', '--latency-ms', '150']);
  if (process.platform === 'linux') {
    shim = join(tempDir('rcs-crash-shim-'), 'crash-at.so');
    execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', shim, SHIM_SOURCE, '-ldl']);
  }
});
afterAll(async () => {
  await m?.stop();
});

function batch(seed: number): { dir: string; texts: string[] } {
  const dir = tempDir('rcs-concurrent-');
  const texts = FILES.map((f, i) => {
    const text = labeledCall(m.repEmails[0] ?? '', seed + i);
    writeFileSync(join(dir, f), text);
    return text;
  });
  return { dir, texts };
}

function upload(dir: string, env: Record<string, string> = {}) {
  return runCli(['upload', ...FILES, '--email', m.repEmails[0] ?? '', '--json'], {
    cwd: dir,
    env: { ...m.env, ...env },
  });
}

const results = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { file: string; status: string; otherRun?: { pid: number } });

describe('concurrent rcs upload runs over the same batch', () => {
  it('three at once: one session per file; the others wait, then skip what the first uploaded and say so', async () => {
    const { dir, texts } = batch(3800);
    const runs = await Promise.all(Array.from({ length: RUNS }, () => upload(dir)));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(await sessionsWith(m, texts)).toEqual(texts.map(() => 1));

    const all = runs.map((r) => results(r.stdout));
    // Every file created exactly once over the three runs; skipped by the other two.
    for (const f of FILES) {
      const statuses = all.map((rs) => rs.find((x) => x.file === f)?.status).sort();
      expect(statuses, f).toEqual(['created', 'skipped', 'skipped']);
    }
    // The runs that waited said so on stderr, and name the run they waited for in --json.
    const waited = runs.filter((r) => r.stderr.includes('waiting for another rcs upload'));
    expect(waited.length).toBeGreaterThanOrEqual(RUNS - 1);
    for (const rs of all) {
      for (const x of rs.filter((x) => x.status === 'skipped')) {
        expect(x.otherRun?.pid, JSON.stringify(x)).toEqual(expect.any(Number));
      }
    }
    expect(
      readLedger(join(dir, '.rcs-ledger.jsonl')).filter((e) => e.status === 'created'),
    ).toHaveLength(4);
  });

  it.skipIf(process.platform !== 'linux')(
    // The shim needs LD_PRELOAD (Linux).
    'three at once, each killed between an upload and its record: still one session per file',
    async () => {
      const { dir, texts } = batch(3900);
      // SIGKILL before a run's second write of the ledger: its first upload was sent and
      // answered, its outcome not yet recorded (the `sending` line is the last word).
      const crash = {
        LD_PRELOAD: shim,
        CRASH_CALLS: 'write',
        CRASH_FILE: '/.rcs-ledger.jsonl',
        CRASH_AT: '2',
      };
      const runs = await Promise.all(Array.from({ length: RUNS }, () => upload(dir, crash)));
      // The first to hold the ledger has four files to send: it is certainly killed.
      expect(runs.filter((r) => r.signal === 'SIGKILL').length).toBeGreaterThanOrEqual(1);
      for (const r of runs.filter((r) => r.signal === null)) expect(r.code, r.stderr).toBe(0);
      // A run after them finishes the batch: what the killed ones sent is found, not sent again.
      const last = await upload(dir);
      expect(last.code, last.stderr).toBe(0);
      expect(await sessionsWith(m, texts)).toEqual(texts.map(() => 1));
      const created = readLedger(join(dir, '.rcs-ledger.jsonl')).filter(
        (e) => e.status === 'created',
      );
      expect(new Set(created.map((e) => e.file))).toEqual(new Set(FILES));
    },
  );
});

describe("a ledger's lock left or held by another run", () => {
  const since = '2026-01-01T00:00:00.000Z';
  const plantLock = (dir: string, pid: number) => {
    const lock = join(dir, '.rcs-ledger.jsonl.lock');
    writeFileSync(lock, JSON.stringify({ pid, host: hostname(), startedAt: since }));
    return lock;
  };

  it('left by a run that was killed: taken over at once, and the taker says so', async () => {
    const { dir, texts } = batch(4000);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    const lock = plantLock(dir, dead);
    const r = await upload(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `note: the rcs upload that held the ledger .rcs-ledger.jsonl (pid ${dead} on ${hostname()}, running since ${since}) is gone (pid ${dead} is no longer running); this run goes on from what it recorded (uploads it left unfinished are looked up on the service)\n`,
    );
    expect(r.stderr).not.toContain('waiting for another rcs upload');
    expect(await sessionsWith(m, texts)).toEqual(texts.map(() => 1));
    expect(existsSync(lock)).toBe(false);
  });

  it('held by a live run: this one says it waits, and Ctrl-C ends the wait with nothing sent', async () => {
    const { dir, texts } = batch(4100);
    // This test's own process: alive, on this host, and never releasing it.
    const lock = plantLock(dir, process.pid);
    const planted = readFileSync(lock, 'utf8');
    const waiting = `waiting for another rcs upload (pid ${process.pid} on ${hostname()}, running since ${since}) that is writing the ledger .rcs-ledger.jsonl: what it uploads is skipped here, the rest uploaded\n`;
    const run = startCli(['upload', ...FILES, '--email', m.repEmails[0] ?? ''], {
      cwd: dir,
      env: m.env,
    });
    await run.seen('stderr', waiting);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.stderr).toContain(waiting);
    expect(r.stderr).toContain(
      'interrupted while waiting for the ledger .rcs-ledger.jsonl; nothing was sent',
    );
    expect(r.code).toBe(130);
    expect(await sessionsWith(m, texts)).toEqual(texts.map(() => 0));
    // The holder's lock is left as it was, and nothing of the waiting run is left beside it.
    expect(readFileSync(lock, 'utf8')).toBe(planted);
    expect(readdirSync(dir).sort()).toEqual([...FILES, '.rcs-ledger.jsonl.lock'].sort());
  });
});
