import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuthenticationError,
  ConnectionError,
  type RcsClient,
  type RealCallSession,
  ServerError,
  UnprocessableError,
  WaitTimeoutError,
} from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/upload.js';
import { InterruptedError } from '../../../src/errors.js';
import { fakeContext as sharedContext } from '../../support/context.js';

// upload's run(opts, ctx) with a fake client: what the batch does, without a network.

const REP = 'rep@acme.com';

function call(n: number): string {
  return `1\n00:00:00,000 --> 00:00:03,000\n${REP}: call number ${n}, what is the budget?\n`;
}

/** The shared test context, with this file's client and working directory. */
function fakeContext(cwd: string, client: Partial<RcsClient>, signal?: AbortSignal) {
  // The ledger keys each upload by the client's base URL (D28).
  const withUrl = { baseUrl: 'http://127.0.0.1:4010', ...client } as RcsClient;
  const fake = sharedContext({ client: () => withUrl, cwd, signal });
  return { ctx: fake.ctx, out: fake.stdout, err: fake.stderr };
}

function dirWith(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'rcs-upload-'));
  for (let i = 0; i < count; i++) writeFileSync(join(dir, `c${i}.srt`), call(i));
  return dir;
}

describe('rcs upload run()', () => {
  it('keeps at most --concurrency uploads in flight, and writes the ledger as each finishes', async () => {
    const dir = dirWith(12);
    let inFlight = 0;
    let peak = 0;
    const ledgerSizes: number[] = [];
    const ledger = join(dir, '.rcs-ledger.jsonl');
    let n = 0;
    // Each create is answered once three are in flight (or every upload has started): the
    // uploads overlap as far as the run lets them, however slowly the machine goes.
    let started = 0;
    let answer = () => {};
    let overlapping = new Promise<void>((r) => {
      answer = r;
    });
    const client = {
      sessions: {
        create: async () => {
          inFlight++;
          started++;
          peak = Math.max(peak, inFlight);
          // The previous uploads' outcomes are already on disk when the next one starts, and
          // each upload in flight has its write-ahead `sending` line there.
          try {
            const text = readFileSync(ledger, 'utf8');
            expect(text.match(/"status":"sending"/g)?.length).toBe(inFlight);
            ledgerSizes.push(text.match(/"status":"created"/g)?.length ?? 0);
          } catch {
            ledgerSizes.push(0);
          }
          const wave = overlapping;
          if (inFlight === 3 || started === 12) {
            answer();
            overlapping = new Promise<void>((r) => {
              answer = r;
            });
          }
          await wave;
          inFlight--;
          return {
            id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
            state: 'PENDING',
          };
        },
      },
    } as unknown as Partial<RcsClient>;
    const { ctx, out } = fakeContext(dir, client);
    const files = Array.from({ length: 12 }, (_, i) => join(dir, `c${i}.srt`));
    const code = await run({ files, email: REP, concurrency: 3 }, ctx);
    expect(code).toBe(0);
    expect(peak).toBe(3);
    expect(Math.max(...ledgerSizes)).toBeGreaterThanOrEqual(9);
    expect(out().match(/^created /gm)).toHaveLength(12);
    const statuses = readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).status);
    // One line per upload: each outcome was written over its intent, in place.
    expect(statuses).toEqual(Array(12).fill('created'));
  });

  it('a 401 stops the batch (every other upload would fail the same way): exit 4', async () => {
    const dir = dirWith(8);
    let calls = 0;
    const client = {
      sessions: {
        create: async () => {
          calls++;
          throw new AuthenticationError({ status: 401, message: 'unauthorized' });
        },
      },
    } as unknown as Partial<RcsClient>;
    const { ctx, err } = fakeContext(dir, client);
    const files = Array.from({ length: 8 }, (_, i) => join(dir, `c${i}.srt`));
    const code = await run({ files, email: REP, concurrency: 2 }, ctx);
    expect(code).toBe(4);
    expect(calls).toBeLessThanOrEqual(2);
    expect(err()).toMatch(/credentials were refused/);
  });

  it('a batch goes on past a file that fails pre-validation: it is reported and skipped, exit 3', async () => {
    const dir = dirWith(2);
    writeFileSync(
      join(dir, 'bad.srt'),
      '1\n00:00:00,000 --> 00:00:02,000\nother@acme.com: hello there\n',
    );
    let calls = 0;
    const client = {
      sessions: {
        create: async () => {
          calls++;
          return { id: `00000000-0000-4000-8000-00000000000${calls}`, state: 'PENDING' };
        },
      },
    } as unknown as Partial<RcsClient>;
    const { ctx, out, err } = fakeContext(dir, client);
    expect(await run({ files: [dir], email: REP }, ctx)).toBe(3);
    expect(calls).toBe(2);
    expect(out().match(/^created /gm)).toHaveLength(2);
    // One line for the failed file: its name, its first problem, that the batch went on.
    expect(err()).toMatch(
      /bad\.srt: The transcript is speaker-labeled but the rep rep@acme\.com never speaks.*\(not uploaded, the rest of the batch goes on\)/,
    );
    expect(err()).toMatch(/1 of 3 uploads failed/);
  });

  it('--json: the failed file is a "failed" line with its problems and their lines', async () => {
    const dir = dirWith(1);
    writeFileSync(
      join(dir, 'bad.srt'),
      '1\n00:00:00,000 --> 00:00:02,000\nrep@acme.com: hello\n\n2\n00:00:02：500 --> 00:00:04,000\nrep@acme.com: there\n',
    );
    const client = {
      sessions: {
        create: async () => ({ id: '00000000-0000-4000-8000-000000000001', state: 'PENDING' }),
      },
    } as unknown as Partial<RcsClient>;
    const { ctx, out } = fakeContext(dir, client);
    ctx.json = true;
    expect(await run({ files: [dir], email: REP }, ctx)).toBe(3);
    const lines = out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.status === 'failed')).toMatchObject({
      file: join(dir, 'bad.srt'),
      error: {
        code: 'prevalidation_failed',
        problems: [
          { code: 'malformed_timing', line: 6, message: expect.stringMatching(/^Line 6 /) },
        ],
      },
    });
    expect(lines.filter((l) => l.status === 'created')).toHaveLength(1);
  });

  it('a single file that fails pre-validation sends nothing (exit 2 via CliError)', async () => {
    const dir = dirWith(0);
    const bad = join(dir, 'bad.srt');
    writeFileSync(bad, '1\n00:00:00,000 --> 00:00:02,000\nother@acme.com: hello there\n');
    let calls = 0;
    const client = { sessions: { create: async () => calls++ } } as unknown as Partial<RcsClient>;
    const { ctx, err } = fakeContext(dir, client);
    await expect(run({ files: [bad], email: REP }, ctx)).rejects.toMatchObject({ exitCode: 2 });
    expect(calls).toBe(0);
    expect(err()).toMatch(
      /bad\.srt: The transcript is speaker-labeled but the rep rep@acme\.com never speaks/,
    );
  });

  it('a batch whose every file fails sends nothing (exit 2)', async () => {
    const dir = dirWith(0);
    for (const name of ['a.srt', 'b.srt'])
      writeFileSync(
        join(dir, name),
        '1\n00:00:00,000 --> 00:00:02,000\nother@acme.com: hi there\n',
      );
    let calls = 0;
    const client = { sessions: { create: async () => calls++ } } as unknown as Partial<RcsClient>;
    const { ctx } = fakeContext(dir, client);
    await expect(run({ files: [dir], email: REP }, ctx)).rejects.toMatchObject({ exitCode: 2 });
    expect(calls).toBe(0);
  });
});

describe('rcs upload run(): the same text twice in one batch', () => {
  it('is uploaded once; the copy is skipped and says which file it duplicates', async () => {
    const dir = dirWith(1);
    writeFileSync(join(dir, 'copy.srt'), call(0));
    let calls = 0;
    const client = {
      sessions: {
        create: async () => {
          calls++;
          return { id: '00000000-0000-4000-8000-000000000001', state: 'PENDING' };
        },
      },
    } as unknown as Partial<RcsClient>;
    const { ctx, out } = fakeContext(dir, client);
    const code = await run(
      { files: [join(dir, 'c0.srt'), join(dir, 'copy.srt')], email: REP },
      ctx,
    );
    expect(code).toBe(0);
    expect(calls).toBe(1);
    expect(out()).toMatch(/skipped {2}.*copy\.srt {2}\(same text as .*c0\.srt\)/);
  });
});

describe('rcs upload --wait: reading the session back fails', () => {
  const api = (status: number) => ({ status, message: `HTTP ${status}`, detail: 'x' });
  const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const done = (sessionId: string) =>
    ({
      id: sessionId,
      state: 'DONE',
      completed: true,
      language: 'en',
      userId: 'u',
      call: { state: 'DONE' },
      analysis: { state: 'DONE', score: 80, items: [] },
      kpis: { state: 'SKIPPED' },
    }) as unknown as RealCallSession;

  /** create answers PENDING; waitUntilDone answers per session id with `waits[n]`. */
  function client(waits: ((sessionId: string) => Promise<RealCallSession>)[]) {
    let n = 0;
    const byId = new Map<string, (sessionId: string) => Promise<RealCallSession>>();
    return {
      sessions: {
        create: async () => {
          const sessionId = id(++n);
          byId.set(sessionId, waits[n - 1]!);
          return { id: sessionId, state: 'PENDING' };
        },
        waitUntilDone: (sessionId: string) => byId.get(sessionId)!(sessionId),
      },
    } as unknown as Partial<RcsClient>;
  }

  it('one file: the read-back failure is the exit code (1), not 0; the ledger keeps the upload', async () => {
    const dir = dirWith(1);
    const { ctx, out, err } = fakeContext(
      dir,
      client([
        async () => {
          throw new ServerError(api(503));
        },
      ]),
    );
    const code = await run({ files: [join(dir, 'c0.srt')], email: REP, wait: true }, ctx);
    expect(code).toBe(1);
    expect(out()).toMatch(/^created {2}.*c0\.srt {2}00000000-0000-4000-8000-000000000001$/m);
    expect(err()).toMatch(
      /c0\.srt: uploaded as session 00000000-0000-4000-8000-000000000001, but reading it back failed: the service failed \(503\)/,
    );
    const ledger = readFileSync(join(dir, '.rcs-ledger.jsonl'), 'utf8');
    expect(ledger).toMatch(/"status":"created"/);
  });

  it('one file: a 401 while reading back exits 4', async () => {
    const dir = dirWith(1);
    const { ctx } = fakeContext(
      dir,
      client([
        async () => {
          throw new AuthenticationError(api(401));
        },
      ]),
    );
    expect(await run({ files: [join(dir, 'c0.srt')], email: REP, wait: true }, ctx)).toBe(4);
  });

  it('a batch where one session cannot be read back is partial (3), even with a timeout too', async () => {
    const dir = dirWith(3);
    const { ctx, err } = fakeContext(
      dir,
      client([
        async (s) => done(s),
        async () => {
          throw new ServerError(api(503));
        },
        async (s) => {
          throw new WaitTimeoutError(s, 1000);
        },
      ]),
    );
    const files = [0, 1, 2].map((i) => join(dir, `c${i}.srt`));
    const code = await run({ files, email: REP, wait: true }, ctx);
    expect(code).toBe(3);
    expect(err()).toMatch(
      /1 uploaded session could not be read back \(00000000-0000-4000-8000-000000000002; `rcs sessions wait <id>`/,
    );
  });
});

describe('rcs upload: stopped by a signal while an upload is in flight', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s: exit %i, and the in-flight upload is recorded as unknown',
    async (signal, code) => {
      const dir = dirWith(1);
      const stop = new AbortController();
      const client = {
        sessions: {
          create: async (_body: unknown, options: { signal: AbortSignal }) => {
            stop.abort(new InterruptedError(signal));
            // What the client does: the caller's abort reason is what the request rejects with.
            throw options.signal.reason;
          },
        },
      } as unknown as Partial<RcsClient>;
      const { ctx } = fakeContext(dir, client, stop.signal);
      expect(await run({ files: [join(dir, 'c0.srt')], email: REP }, ctx)).toBe(code);
      const ledger = readFileSync(join(dir, '.rcs-ledger.jsonl'), 'utf8');
      expect(ledger).toMatch(/"status":"unknown"/);
    },
  );
});

describe('rcs upload: a failure that arrives while the batch is stopping', () => {
  const api = (status: number, code: string) => ({
    status,
    code,
    message: `HTTP ${status}`,
    detail: 'x',
  });
  it.each([
    [
      'a 422 answer',
      'failed',
      () => new UnprocessableError(api(422, 'email_domain_not_allowed')),
      /email domain/,
    ],
    [
      'a connection refused before sending',
      'failed',
      () => new ConnectionError('connect ECONNREFUSED'),
      /could not reach the service/,
    ],
    [
      'a connection lost after sending',
      'unknown',
      () => new ConnectionError('socket hang up', { mayHaveBeenCreated: true }),
      /outcome is unknown/,
    ],
  ] as const)('%s is recorded as %s, with its own line', async (_name, status, error, line) => {
    const dir = dirWith(1);
    const stop = new AbortController();
    const client = {
      sessions: {
        create: async () => {
          stop.abort(new InterruptedError('SIGINT'));
          throw error();
        },
      },
    } as unknown as Partial<RcsClient>;
    const { ctx, err } = fakeContext(dir, client, stop.signal);
    expect(await run({ files: [join(dir, 'c0.srt')], email: REP }, ctx)).toBe(130);
    const ledger = readFileSync(join(dir, '.rcs-ledger.jsonl'), 'utf8').trim().split('\n');
    // The outcome, written over the write-ahead intent.
    expect(ledger.map((l) => JSON.parse(l).status)).toEqual([status]);
    expect(err()).toMatch(line);
  });
});

describe('rcs upload: session ids from the service are terminal-safe', () => {
  it('escapes control characters in the id on stdout and stderr', async () => {
    const dir = dirWith(1);
    const evil = 'id\u001b]0;pwned\u0007\u001b[2J';
    const client = {
      sessions: {
        create: async () => ({ id: evil, state: 'PENDING' }),
        waitUntilDone: async () => {
          throw new WaitTimeoutError(evil, 1000);
        },
      },
    } as unknown as Partial<RcsClient>;
    const { ctx, out, err } = fakeContext(dir, client);
    const code = await run({ files: [join(dir, 'c0.srt')], email: REP, wait: true }, ctx);
    expect(code).toBe(5);
    expect(out() + err()).not.toContain('\u001b');
    expect(out()).toContain('id\\x1b]0;pwned\\x07\\x1b[2J');
    expect(err()).toMatch(/session id\\x1b\]0;pwned\\x07\\x1b\[2J is not DONE yet/);
  });
});
