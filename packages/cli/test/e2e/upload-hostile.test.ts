import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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

// `rcs upload` among others: a link another user planted in a shared directory, a ledger crafted
// to cost a memory-hard hash per line. Real `rcs mock` processes, real files, a real second uid.

vi.setConfig({ testTimeout: 120_000 });
const mocks: MockProcess[] = [];
beforeAll(assertBuilt);
afterAll(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.stop()));
});

async function mock(): Promise<MockProcess> {
  const m = await startMock(['--processing-ms', '0']);
  mocks.push(m);
  return m;
}

// The victim is root (the tests run as root here) and the attacker `nobody`, who can write to a
// sticky world-writable directory (mode 1777, like /tmp) but to none of root's files.
const isRoot = process.getuid?.() === 0;
function nobody(): { uid: number; gid: number } {
  return {
    uid: Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim()),
  };
}

/** A sticky shared directory `nobody` can reach, and a file of the victim's beside it. */
function sharedPlace(): { shared: string; victim: string } {
  const base = mkdtempSync('/tmp/rcs-shared-');
  chmodSync(base, 0o755); // traversable by nobody (mkdtemp makes it 0700)
  const shared = join(base, 'shared');
  mkdirSync(shared);
  chmodSync(shared, 0o1777);
  const victim = join(base, 'victim-notes.txt');
  writeFileSync(victim, 'precious\n', { mode: 0o644 });
  return { shared, victim };
}

/** `nobody` plants `name -> target` in the shared directory. */
function plantLink(shared: string, name: string, target: string): void {
  const { uid, gid } = nobody();
  execFileSync('ln', ['-s', target, join(shared, name)], { uid, gid });
}

describe.skipIf(!isRoot)(
  // A second uid needs root to switch to; as another user this cannot be set up.
  'a link another user planted in a shared directory is refused, never written through (needs root)',
  () => {
    it('the ledger: upload refuses before sending anything; the linked file is untouched', async () => {
      const m = await mock();
      const { shared, victim } = sharedPlace();
      const text = labeledCall(m.repEmails[0] ?? '', 3601);
      writeFileSync(join(shared, 'a.srt'), text);
      plantLink(shared, '.rcs-ledger.jsonl', victim);

      const r = await runCli(['upload', 'a.srt', '--email', m.repEmails[0] ?? ''], {
        cwd: shared,
        env: m.env,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('.rcs-ledger.jsonl is a symbolic link');
      expect(r.stderr).toContain('remove the link');
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
      expect(await sessionsWith(m, [text])).toEqual([0]);

      // Named by the user (--ledger), a link is refused all the same: the name is what was planted.
      plantLink(shared, 'team-ledger.jsonl', victim);
      const named = await runCli(
        ['upload', 'a.srt', '--email', m.repEmails[0] ?? '', '--ledger', 'team-ledger.jsonl'],
        { cwd: shared, env: m.env },
      );
      expect(named.code, named.stderr).toBe(2);
      expect(named.stderr).toContain('team-ledger.jsonl is a symbolic link');
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
      expect(await sessionsWith(m, [text])).toEqual([0]);
    });

    it('the trace file: not truncated or written through; the run says so and goes on', async () => {
      const { shared, victim } = sharedPlace();
      writeFileSync(join(shared, 'a.srt'), labeledCall('rep@acme.example', 3602));
      plantLink(shared, 'trace.jsonl', victim);

      const r = await runCli(
        ['check', 'a.srt', '--email', 'rep@acme.example', '--trace-file', 'trace.jsonl'],
        { cwd: shared },
      );
      expect(r.stderr).toContain('refused --trace-file');
      expect(r.stderr).toContain('trace.jsonl is a symbolic link');
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    });
  },
);

describe('a ledger crafted with a salt per line costs one fingerprint, not one per line', () => {
  it('300 lines with their own salts: ignored with one notice; the ledger`s own lines decide', async () => {
    const m = await mock();
    const dir = tempDir();
    const rep = m.repEmails[0] ?? '';
    const texts = ['a.srt', 'b.srt'].map((f, i) => {
      const text = labeledCall(rep, 3610 + i);
      writeFileSync(join(dir, f), text);
      return text;
    });
    const first = await runCli(['upload', 'a.srt', '--email', rep], { cwd: dir, env: m.env });
    expect(first.code, first.stderr).toBe(0);
    const ledgerPath = join(dir, '.rcs-ledger.jsonl');
    const [own] = readLedger(ledgerPath);
    // Crafted: each line claims b.srt (and a.srt) was uploaded, each with a salt of its own.
    const crafted = Array.from({ length: 300 }, (_, i) =>
      JSON.stringify({
        ...own,
        file: 'b.srt',
        sha256:
          i % 2 === 0
            ? own?.sha256
            : createHash('sha256')
                .update(texts[1] ?? '')
                .digest('hex'),
        credential: `scrypt1.${i.toString(16).padStart(32, '0')}.${'0'.repeat(32)}`,
        sessionId: `00000000-0000-4000-8000-${i.toString().padStart(12, '0')}`,
      }),
    );
    writeFileSync(ledgerPath, `${readFileSync(ledgerPath, 'utf8')}${crafted.join('\n')}\n`);
    const json = await runCli(['upload', 'a.srt', 'b.srt', '--email', rep, '--dry-run', '--json'], {
      cwd: dir,
      env: m.env,
    });
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toMatchObject([
      { file: 'a.srt', action: 'skip', ledger: { line: 1 } },
      { file: 'b.srt', action: 'upload' },
    ]);

    const dry = await runCli(['upload', 'a.srt', 'b.srt', '--email', rep, '--dry-run'], {
      cwd: dir,
      env: m.env,
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^would skip {4}a\.srt .*ledger line 1 matched/m);
    expect(dry.stdout).toMatch(/^would upload {2}b\.srt$/m);
    const notices = dry.stderr.split('\n').filter((l) => l.includes('another salt'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('ignored 300 lines');
    expect(notices[0]).toContain('(2, 3, 4, 5, 6, …)');

    const real = await runCli(['upload', 'a.srt', 'b.srt', '--email', rep], {
      cwd: dir,
      env: m.env,
    });
    expect(real.code, real.stderr).toBe(0);
    expect(await sessionsWith(m, texts)).toEqual([1, 1]);
  });
});
