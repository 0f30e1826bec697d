import { existsSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  assertBuilt,
  labeledCall,
  type MockProcess,
  type RunResult,
  readLedger,
  runCli,
  startCli,
  startMock,
  tempDir,
} from './helpers.js';

// Exactly once when the ledger's lock changes hands (D28 across processes), over real processes
// against one real `rcs mock`: a holder paused past its lease (SIGSTOP) and taken over stops when
// it resumes, sending and recording nothing more; a waiting run in another PID namespace (a
// second container of a pod: same host name, same boot) does not take a live holder's pid for
// dead; a planted lock promising an hour's lease is judged by the lease this rcs writes (20 s).
// Every wait is for an event: a ledger line, a line on stderr, a process's end.

vi.setConfig({ testTimeout: 240_000 });
const LEDGER = '.rcs-ledger.jsonl';
const GONE_BY_LEASE = 'is gone (it did not change for its lease of 20 s)';
let m: MockProcess;
beforeAll(async () => {
  assertBuilt();
  // Scoring takes a while: a run with --wait holds the lock, waiting, between two uploads.
  m = await startMock(['--processing-ms', '6000']);
});
afterAll(async () => {
  await m?.stop();
});

function batch(count: number, seed: number) {
  const dir = tempDir('rcs-lock-lease-');
  const files = Array.from({ length: count }, (_, i) => `call${String(i).padStart(2, '0')}.srt`);
  const texts = files.map((f, i) => {
    const text = labeledCall(m.repEmails[0] ?? '', seed + i);
    writeFileSync(join(dir, f), text);
    return text;
  });
  return { dir, files, texts };
}

function upload(dir: string, files: string[], args: string[]) {
  return startCli(['upload', ...files, '--email', m.repEmails[0] ?? '', '--json', ...args], {
    cwd: dir,
    env: m.env,
  });
}

/** `created` lines in the ledger now (read as text: a line may be being written). */
const createdLines = (dir: string) =>
  existsSync(join(dir, LEDGER))
    ? (readFileSync(join(dir, LEDGER), 'utf8').match(/"status":"created"/g) ?? []).length
    : 0;

/** Every session of the mock's sessions export: its id and transcript. */
async function sessions(): Promise<{ id: string; transcript: string | null }[]> {
  const all: { id: string; transcript: string | null }[] = [];
  for (let page = 1; ; page++) {
    const res = await fetch(
      `${m.url}/api/v1/data-exports/real-call-sessions?page=${page}&limit=100`,
      { headers: { 'x-api-key': m.apiKey } },
    );
    const body = (await res.json()) as {
      data: { id: string; transcript: string | null }[];
      meta: { hasNext: boolean };
    };
    all.push(...body.data);
    if (!body.meta.hasNext) return all;
  }
}

/** Each text is on the service exactly once, and the ledger records that very session for it. */
async function exactlyOnceAndRecorded(dir: string, files: string[], texts: string[]) {
  const all = await sessions();
  const ids = texts.map((t) => all.filter((s) => s.transcript === t).map((s) => s.id));
  expect(ids.map((i) => i.length)).toEqual(texts.map(() => 1));
  const created = readLedger(join(dir, LEDGER)).filter((e) => e.status === 'created');
  files.forEach((f, i) => {
    const recorded = new Set(created.filter((e) => e.file === f).map((e) => e.sessionId));
    expect([...recorded], f).toEqual(ids[i]);
  });
}

describe('a holder paused past its lease (SIGSTOP) and taken over', () => {
  it.each([
    [12, 1, 3],
    [40, 4, 8],
  ])(
    '%i files at --concurrency %i: the taker finishes, the holder resumes and stops; each file once',
    async (count, concurrency, stopAt) => {
      const { dir, files, texts } = batch(count, 20_000 + count * 100);
      const holding = upload(dir, files, [
        '--concurrency',
        String(concurrency),
        '--wait',
        '--timeout',
        '600',
      ]);
      const holder = holding.child;
      // Paused while it waits for scores: it holds the lock and renews it no more.
      await vi.waitFor(() => expect(createdLines(dir)).toBeGreaterThanOrEqual(stopAt), {
        timeout: 120_000,
        interval: 20,
      });
      holder.kill('SIGSTOP');
      let taker: RunResult;
      try {
        taker = await upload(dir, files, ['--concurrency', String(concurrency)]).done;
      } finally {
        holder.kill('SIGCONT');
      }
      expect(taker.code, taker.stderr).toBe(0);
      expect(taker.stderr).toContain(GONE_BY_LEASE);
      const held = await holding.done;
      await exactlyOnceAndRecorded(dir, files, texts);
      // It found out before its next upload: nothing more sent, a clear line, exit 1.
      expect(held.code, held.stderr).toBe(1);
      expect(held.stderr).toContain(
        `the ledger lock ${join(dir, LEDGER)}.lock is no longer this run's`,
      );
      expect(held.stderr).toContain(
        'this run stops, replacing and recording nothing more; run the same command again later',
      );
    },
  );
});

describe('a waiting run in another PID namespace (a second container of a pod)', () => {
  it.skipIf(process.platform !== 'linux')(
    "does not take the live holder's pid for dead: it waits, then skips what the holder uploaded",
    async () => {
      const { dir, files, texts } = batch(4, 30_000);
      const holding = upload(dir, files, ['--concurrency', '1', '--wait']);
      await vi.waitFor(() => expect(existsSync(join(dir, `${LEDGER}.lock`))).toBe(true), {
        timeout: 60_000,
        interval: 20,
      });
      // Its own PID namespace: the holder's pid names no process there (or another one).
      const waiter = await runCli(['upload', ...files, '--email', m.repEmails[0] ?? ''], {
        cwd: dir,
        env: m.env,
        command: ['unshare', '--pid', '--fork', '--mount-proc', process.execPath],
      });
      const held = await holding.done;
      await exactlyOnceAndRecorded(dir, files, texts);
      expect(held.code, held.stderr).toBe(0);
      expect(waiter.code, waiter.stderr).toBe(0);
      expect(waiter.stderr).toContain('waiting for another rcs upload');
      expect(waiter.stderr).not.toContain('is gone');
    },
  );
});

describe('a planted lock that promises a lease of an hour, held by pid 1 (alive)', () => {
  it('is judged by the lease this rcs writes: the run takes it over and uploads', async () => {
    const { dir, files, texts } = batch(2, 40_000);
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pidNs = readlinkSync('/proc/self/ns/pid');
    writeFileSync(
      join(dir, `${LEDGER}.lock`),
      JSON.stringify({
        pid: 1,
        host: hostname(),
        bootId,
        pidNs,
        startedAt: '',
        leaseMs: 3_600_000,
      }),
    );
    const r = await upload(dir, files, []).done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('waiting for another rcs upload (pid 1 on');
    expect(r.stderr).toContain(GONE_BY_LEASE);
    await exactlyOnceAndRecorded(dir, files, texts);
  });
});
