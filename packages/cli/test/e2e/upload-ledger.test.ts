import { copyFileSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
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

// D28 One upload, one service (scenarios 1 and 2 and unknown outcomes), over real
// `rcs mock` processes on loopback and real files: the ledger keys each upload by the service and
// the credential, a failed --force leaves the earlier success in force, and an upload whose
// outcome is unknown is looked up on the service, never guessed.

// Several rcs runs and mock processes per test: a loaded machine needs more than the default.
vi.setConfig({ testTimeout: 180_000 });
const mocks: MockProcess[] = [];
beforeAll(assertBuilt);
afterAll(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.stop()));
});

async function mock(args: string[] = []): Promise<MockProcess> {
  const m = await startMock(['--processing-ms', '0', ...args]);
  mocks.push(m);
  return m;
}

function upload(m: MockProcess, dir: string, args: string[]) {
  const rep = m.repEmails[0] ?? '';
  return runCli(['upload', ...args, '--email', rep], { cwd: dir, env: m.env });
}

/** `count` distinct calls in `dir` (a.srt, b.srt, …), and their texts. */
function calls(m: MockProcess, dir: string, count: number, seed: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const text = labeledCall(m.repEmails[0] ?? '', seed * 100 + i);
    writeFileSync(join(dir, `${String.fromCharCode(97 + i)}.srt`), text);
    return text;
  });
}

describe('D28: a ledger line counts for its own service only (scenario 1)', () => {
  it('a file uploaded to one mock is still uploaded to another; each then skips its own', async () => {
    // Same seed, so the same API key and reps: only the base URL tells the two apart.
    const [a, b] = await Promise.all([mock(), mock()]);
    expect(a!.apiKey).toBe(b!.apiKey);
    const dir = tempDir();
    const [text] = calls(a!, dir, 1, 1);

    const first = await upload(a!, dir, ['a.srt']);
    expect(first.code, first.stderr).toBe(0);
    const idA = first.stdout.trim().split(/\s+/)[2];
    const toB = await upload(b!, dir, ['a.srt']);
    expect(toB.code, toB.stderr).toBe(0);
    expect(toB.stdout).toMatch(/^created {2}a\.srt /);
    const idB = toB.stdout.trim().split(/\s+/)[2];
    expect(await sessionsWith(a!, [text!])).toEqual([1]);
    expect(await sessionsWith(b!, [text!])).toEqual([1]);

    // Each service skips its own upload, and --dry-run / -v name the line that decided it.
    const dryA = await upload(a!, dir, ['a.srt', '--dry-run']);
    expect(dryA.code).toBe(0);
    expect(dryA.stdout).toContain(
      `would skip    a.srt  ${idA}  (ledger line 1 matched: a.srt uploaded to ${a!.url} as session ${idA} on `,
    );
    const dryB = await upload(b!, dir, ['a.srt', '--dry-run', '--json']);
    expect(JSON.parse(dryB.stdout)).toMatchObject({
      file: 'a.srt',
      dryRun: true,
      action: 'skip',
      ledger: { line: 2, file: 'a.srt', service: b!.url, status: 'created', sessionId: idB },
    });
    const verbose = await upload(a!, dir, ['a.srt', '-v']);
    expect(verbose.stdout).toMatch(/^skipped {2}a\.srt /);
    expect(verbose.stderr).toContain(
      `a.srt: ledger line 1 matched: a.srt uploaded to ${a!.url} as session ${idA}`,
    );
    expect(await sessionsWith(a!, [text!])).toEqual([1]);
    expect(await sessionsWith(b!, [text!])).toEqual([1]);
    // The ledger holds a fingerprint of the key, never the key.
    expect(readFileSync(join(dir, '.rcs-ledger.jsonl'), 'utf8')).not.toContain(a!.apiKey);
  });
});

describe('D28: a failed --force leaves the earlier success in force (scenario 2)', () => {
  it('upload, --force against a failing service, then a plain run skips', async () => {
    const ok = await mock();
    const port = new URL(ok.url).port;
    const dir = tempDir();
    const [text] = calls(ok, dir, 1, 2);
    const first = await upload(ok, dir, ['a.srt']);
    expect(first.code, first.stderr).toBe(0);
    const id = first.stdout.trim().split(/\s+/)[2];

    // The same service (URL and key), now failing every request.
    await ok.stop();
    const failing = await mock(['--port', port, '--fault-rate', '1']);
    const forced = await upload(failing, dir, ['a.srt', '--force']);
    expect(forced.code).not.toBe(0);
    await failing.stop();

    const again = await mock(['--port', port]);
    const plain = await upload(again, dir, ['a.srt']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.trim()).toBe(
      `skipped  a.srt  ${id}  (already uploaded; --force uploads again)`,
    );
    expect(await sessionsWith(again, [text!])).toEqual([0]); // not uploaded again
  });
});

describe('D28: an unknown outcome is looked up on the service, never guessed', () => {
  it('answers lost after the create: the next run finds every one in one pass, uploads none again', async () => {
    const lossy = await mock(['--drop-after-create', '1']);
    const dir = tempDir();
    const texts = calls(lossy, dir, 3, 3);
    const first = await upload(lossy, dir, ['a.srt', 'b.srt', 'c.srt']);
    expect(first.code).toBe(3);
    expect(readLedger(join(dir, '.rcs-ledger.jsonl')).map((e) => e.status)).toEqual([
      'unknown',
      'unknown',
      'unknown',
    ]);
    expect(await sessionsWith(lossy, texts)).toEqual([1, 1, 1]);

    // --no-resolve: not looked up and not sent (never a silent second upload).
    const copy = tempDir();
    for (const f of ['a.srt', 'b.srt', 'c.srt', '.rcs-ledger.jsonl']) {
      copyFileSync(join(dir, f), join(copy, f));
    }
    const noResolve = await upload(lossy, copy, ['a.srt', 'b.srt', 'c.srt', '--no-resolve']);
    expect(noResolve.code).toBe(3);
    expect(noResolve.stderr).toMatch(
      /a\.srt: an earlier upload's outcome is unknown .*--no-resolve/,
    );
    // --dry-run says what a run would look up, and looks nothing up.
    const dry = await upload(lossy, copy, ['a.srt', '--dry-run']);
    expect(dry.stdout).toMatch(/^would look up a\.srt {2}\(its outcome is unknown since /);

    const second = await upload(lossy, dir, ['a.srt', 'b.srt', 'c.srt', '--json']);
    expect(second.code, second.stderr).toBe(0);
    const lines = second.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.file, l.status, l.foundOnService])).toEqual([
      ['a.srt', 'skipped', true],
      ['b.srt', 'skipped', true],
      ['c.srt', 'skipped', true],
    ]);
    expect(await sessionsWith(lossy, texts)).toEqual([1, 1, 1]);
    // Now recorded: the next run skips from the ledger alone.
    const third = await upload(lossy, dir, ['a.srt', 'b.srt', 'c.srt', '-v']);
    expect(third.code).toBe(0);
    expect(third.stdout.match(/^skipped /gm)).toHaveLength(3);
    expect(third.stderr).not.toMatch(/looking for/);
  });

  it('a ledger written before D28 (no service): looked up, found ones kept, absent ones uploaded', async () => {
    const m = await mock();
    const dir = tempDir();
    const texts = calls(m, dir, 2, 4);
    // a.srt really is on the service (uploaded with another ledger); b.srt never was.
    const real = await upload(m, dir, ['a.srt', '--ledger', 'elsewhere.jsonl']);
    const id = real.stdout.trim().split(/\s+/)[2];
    const { createHash } = await import('node:crypto');
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    const rep = `email:${m.repEmails[0]}`;
    const old = (file: string, text: string, sessionId: string) =>
      JSON.stringify({
        file,
        sha256: sha(text),
        rep,
        at: new Date(Date.now() - 60_000).toISOString(),
        status: 'created',
        sessionId,
      });
    writeFileSync(
      join(dir, '.rcs-ledger.jsonl'),
      `${old('a.srt', texts[0]!, id!)}\n${old('b.srt', texts[1]!, '3f2a9c1e-5b7d-4e8f-8a1b-0c2d3e4f5a6b')}\n`,
    );
    const dry = await upload(m, dir, ['a.srt', 'b.srt', '--dry-run']);
    expect(dry.stdout).toMatch(/^would look up a\.srt {2}\(its ledger line predates service keys/);

    const r = await upload(m, dir, ['a.srt', 'b.srt']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`skipped  a.srt  ${id}  (found on the service`);
    expect(r.stdout).toMatch(/^created {2}b\.srt /m);
    expect(r.stderr).toMatch(/note: 2 ledger lines written by an earlier rcs/);
    expect(await sessionsWith(m, texts)).toEqual([1, 1]);
  });
});

describe('a ledger larger than rcs reads', () => {
  it('is refused before a byte is read, named with its size, and left as it was; nothing is sent', async () => {
    const m = await mock();
    const dir = tempDir();
    const [text] = calls(m, dir, 1, 5);
    // Sparse: 257 MiB on paper, no blocks on disk. One line of its own first, as a real one has.
    const ledger = join(dir, 'years.jsonl');
    writeFileSync(ledger, '{"file":"old.srt"}\n');
    truncateSync(ledger, 257 * 1024 * 1024);
    const before = statSync(ledger);
    const run = await upload(m, dir, ['a.srt', '--ledger', ledger]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `the ledger ${ledger} is 257 MiB, more than rcs reads (256 MiB): keep it, and pass --ledger FILE to start a new one`,
    );
    const after = statSync(ledger);
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
    expect(await sessionsWith(m, [text!])).toEqual([0]);
  });
});
