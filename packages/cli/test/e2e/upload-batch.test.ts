import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  FIXTURES,
  labeledCall,
  readLedger,
  runCli,
  startCli,
  tempDir,
} from './helpers.js';

// Batches against the mock over real HTTP: failures do not stop the others, the ledger lets a
// re-run skip what is done, an unknown outcome is never silently re-sent, --wait, and SIGINT.

let server: MockServer | undefined;
let rep = '';
let key = '';

async function start(options: Parameters<typeof startMockServer>[0] = {}) {
  server = await startMockServer({ port: 0, processingMs: 150, ...options });
  key = server.info.apiKey ?? '';
  rep = server.info.repEmails[0] ?? '';
  return server;
}

function env() {
  return { RCS_BASE_URL: server?.url, RCS_API_KEY: key };
}

function created(): number {
  return server?.api.state.counts().createdSessions ?? 0;
}

/** A directory of `count` good calls, plus the names of files written. */
function callsDir(dir: string, count: number, offset = 0): string {
  const calls = join(dir, 'calls');
  mkdirSync(calls, { recursive: true });
  for (let i = 0; i < count; i++) {
    writeFileSync(
      join(calls, `call-${String(i + offset).padStart(3, '0')}.srt`),
      labeledCall(rep, i + offset),
    );
  }
  return calls;
}

beforeAll(() => assertBuilt());
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('rcs upload batches', () => {
  it('one failure does not stop the others: exit 3 and a summary; a re-run skips what is done', async () => {
    await start();
    const dir = tempDir();
    const calls = callsDir(dir, 3);
    // Rule 8 at the service (pre-validation skipped): this one file fails with 422.
    writeFileSync(join(calls, 'call-bad.srt'), labeledCall('someone-else@demo-sales.example', 99));
    const first = await runCli(['upload', 'calls', '--email', rep, '--no-validate'], {
      cwd: dir,
      env: env(),
    });
    expect(first.code).toBe(3);
    expect(first.stdout.match(/^created /gm)).toHaveLength(3);
    expect(first.stderr).toMatch(/call-bad\.srt: .*422/);
    expect(first.stderr).toMatch(/1 of 4 uploads failed.*run the same command again/);
    expect(created()).toBe(3);

    const again = await runCli(['upload', 'calls', '--email', rep, '--no-validate', '--json'], {
      cwd: dir,
      env: env(),
    });
    expect(again.code).toBe(3);
    const lines = again.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.status === 'skipped')).toHaveLength(3);
    expect(lines.find((l) => l.status === 'failed')).toMatchObject({
      file: join('calls', 'call-bad.srt'),
      error: { code: 'rep_not_in_transcript', status: 422 },
    });
    expect(created()).toBe(3); // nothing uploaded twice

    // Fixed file: only it is uploaded.
    writeFileSync(join(calls, 'call-bad.srt'), labeledCall(rep, 99));
    const fixed = await runCli(['upload', 'calls', '--email', rep], { cwd: dir, env: env() });
    expect(fixed.code).toBe(0);
    expect(fixed.stdout.match(/^skipped /gm)).toHaveLength(3);
    expect(fixed.stdout.match(/^created /gm)).toHaveLength(1);
    expect(created()).toBe(4);

    // --force uploads again, by choice.
    const forced = await runCli(
      ['upload', join('calls', 'call-000.srt'), '--email', rep, '--force'],
      { cwd: dir, env: env() },
    );
    expect(forced.code).toBe(0);
    expect(created()).toBe(5);
  });

  it('a refused connection (nothing was sent) is a plain failure that a re-run sends again', async () => {
    const dir = tempDir();
    rep = 'rep@acme.com';
    writeFileSync(join(dir, 'a.srt'), labeledCall(rep, 1));
    const closed = { RCS_BASE_URL: 'http://127.0.0.1:59999', RCS_API_KEY: 'k-123456' };
    const r = await runCli(['upload', 'a.srt', '--email', rep], { cwd: dir, env: closed });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(
      /^rcs: a\.srt: could not reach the service: .*ECONNREFUSED.*check RCS_BASE_URL and your network/,
    );
    expect(readLedger(join(dir, '.rcs-ledger.jsonl'))).toMatchObject([{ status: 'failed' }]);
    const again = await runCli(['upload', 'a.srt', '--email', rep], { cwd: dir, env: closed });
    expect(again.stderr).toMatch(/could not reach the service/); // tried again, not "unknown"
  });

  it('an upload whose outcome is unknown is recorded as such, then found on the service, never re-sent', async () => {
    await start({ faults: { dropAfterCreate: true } });
    const dir = tempDir();
    writeFileSync(join(dir, 'a.srt'), labeledCall(rep, 1));
    const first = await runCli(['upload', 'a.srt', '--email', rep], { cwd: dir, env: env() });
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/outcome is unknown.*not re-sent/);
    expect(created()).toBe(1); // the mock did create it
    expect(readLedger(join(dir, '.rcs-ledger.jsonl'))).toMatchObject([
      { file: 'a.srt', status: 'unknown' },
    ]);

    // D28: the next run looks for it in the sessions export and finds it.
    const again = await runCli(['upload', 'a.srt', '--email', rep], { cwd: dir, env: env() });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^skipped {2}a\.srt {2}\S+ {2}\(found on the service/);
    expect(created()).toBe(1); // never silently re-sent
  });

  it('a rate-limited service (429 + Retry-After) slows the batch down instead of failing it', async () => {
    await start({ faults: { rateLimit: 2 } });
    const dir = tempDir();
    callsDir(dir, 4);
    const r = await runCli(['upload', 'calls', '--email', rep, '--concurrency', '4', '--verbose'], {
      cwd: dir,
      env: env(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/-> 429/); // it was limited…
    expect(r.stdout.match(/^created /gm)).toHaveLength(4); // …and every upload went through once
    expect(created()).toBe(4);
  });

  it('a Zoom VTT is converted with --speaker maps; an unmapped speaker stops it offline', async () => {
    await start();
    const dir = tempDir();
    const vtt = join(FIXTURES, 'synthetic/meeting/zoom-cloud-transcript.vtt');
    const bare = await runCli(['upload', vtt, '--email', rep], { cwd: dir, env: env() });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/zoom-cloud-transcript\.vtt:\d+: Speaker "Ana Ruiz"/);
    expect(created()).toBe(0);
    const mapped = await runCli(
      [
        'upload',
        vtt,
        '--email',
        rep,
        '--speaker',
        `Ana Ruiz=${rep}`,
        '--speaker',
        'Ben Okafor=ben@client.example',
        '--json',
      ],
      { cwd: dir, env: env() },
    );
    expect(mapped.code, mapped.stderr).toBe(0);
    const line = JSON.parse(mapped.stdout);
    expect(line.status).toBe('created');
    // What was sent is speaker-labeled SRT with the mapped emails (rule 4).
    const stored = server!.api.state
      .org(server!.api.info.organizations[0]!.id)
      .session(line.sessionId);
    expect(stored?.call.transcript).toMatch(
      new RegExp(
        `^\\d+\\n00:00:02,140 --> 00:00:05,870\\n${rep.replace(/\./g, '\\.')}: Morning`,
        'm',
      ),
    );
    expect(stored?.call.transcript).toContain('ben@client.example: Yes, loud and clear.');
  });

  it('--wait prints score, KPIs, scorecard items and the talk-time timeline', async () => {
    await start();
    const dir = tempDir();
    writeFileSync(join(dir, 'a.srt'), labeledCall(rep, 1));
    const r = await runCli(['upload', 'a.srt', '--email', rep, '--wait'], { cwd: dir, env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/DONE {2}score \d+\/100/);
    expect(r.stdout).toMatch(
      /KPIs: listen ratio \d+\.\d% · longest monologue \d+ s · talk speed \d+ wpm/,
    );
    expect(r.stdout).toMatch(/Scorecard item +Result +Score/);
    expect(r.stdout).toMatch(/Asks about budget/);
    expect(r.stdout).toContain(`${rep} (rep)`);
    expect(r.stdout).toMatch(/█/);
    // Not a TTY: no spinner or prose on stderr.
    expect(r.stderr).toBe('');

    const json = await runCli(['upload', 'a.srt', '--email', rep, '--wait', '--json', '--force'], {
      cwd: dir,
      env: env(),
    });
    expect(json.code).toBe(0);
    const line = JSON.parse(json.stdout);
    expect(line).toMatchObject({ file: 'a.srt', status: 'created', session: { state: 'DONE' } });
    expect(line.session.id).toBe(line.sessionId);
  });

  it('--wait gives up after --timeout with exit 5 and the session id to wait for later', async () => {
    await start({ processingMs: 60_000 });
    const dir = tempDir();
    writeFileSync(join(dir, 'a.srt'), labeledCall(rep, 1));
    const r = await runCli(['upload', 'a.srt', '--email', rep, '--wait', '--timeout', '1'], {
      cwd: dir,
      env: env(),
    });
    expect(r.code).toBe(5);
    const id = r.stdout.trim().split(/\s+/)[2];
    expect(r.stderr).toContain(`rcs sessions wait`);
    expect(r.stderr).toContain(id);
    const wait = await runCli(['sessions', 'wait', id!, '--timeout', '0.5'], {
      cwd: dir,
      env: env(),
    });
    expect(wait.code).toBe(5);
    expect(wait.stderr.trim()).toBe(
      `rcs: session ${id} is not DONE yet; wait again later with \`rcs sessions wait ${id}\``,
    );
  });

  it('a reader that goes away (`| head -1`) stops the batch cleanly: no EPIPE crash, ledger exact', async () => {
    await start({ faults: { latencyMs: 100 } });
    const dir = tempDir();
    callsDir(dir, 20);
    const run = startCli(['upload', 'calls', '--email', rep, '--json', '--concurrency', '2'], {
      cwd: dir,
      env: env(),
    });
    run.child.stdout?.once('data', () => run.child.stdout?.destroy());
    const r = await run.done;
    // A closed stdout ends the command without a message (cli.md "Unattended runs").
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const ledger = readLedger(join(dir, '.rcs-ledger.jsonl'));
    const done = ledger.filter((e) => e.status === 'created');
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done.length).toBeLessThan(20);
    expect(created()).toBeGreaterThanOrEqual(done.length);
    expect(created()).toBeLessThanOrEqual(ledger.length);
  });

  it('SIGINT during a batch: exit 130, and the ledger is exactly what was created', async () => {
    await start({ faults: { latencyMs: 150 } });
    const dir = tempDir();
    callsDir(dir, 30);
    const ledgerPath = join(dir, '.rcs-ledger.jsonl');
    const run = startCli(['upload', 'calls', '--email', rep, '--concurrency', '2'], {
      cwd: dir,
      env: env(),
    });
    const poll = setInterval(() => {
      if (readLedger(ledgerPath).filter((e) => e.status === 'created').length >= 4) {
        clearInterval(poll);
        run.child.kill('SIGINT');
      }
    }, 20);
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/interrupted: \d+ uploaded and recorded/);
    const ledger = readLedger(ledgerPath); // every line parses
    const done = ledger.filter((e) => e.status === 'created');
    const unknown = ledger.filter((e) => e.status === 'unknown');
    expect(done.length).toBeGreaterThanOrEqual(4);
    expect(done.length).toBeLessThan(30);
    expect(ledger.every((e) => e.status === 'created' || e.status === 'unknown')).toBe(true);
    // Each created entry is a real session; an in-flight one may or may not exist (unknown).
    const org = server!.api.state.org(server!.api.info.organizations[0]!.id);
    for (const e of done) expect(org.session(e.sessionId as string)).toBeDefined();
    expect(created()).toBeGreaterThanOrEqual(done.length);
    expect(created()).toBeLessThanOrEqual(done.length + unknown.length);
    expect(new Set(ledger.map((e) => e.file)).size).toBe(ledger.length);

    // The re-run uploads only what is missing: the unknown ones are looked up on the service
    // first (D28), so that each file ends with exactly one session.
    const sessionsBefore = created();
    const rerun = await runCli(['upload', 'calls', '--email', rep, '--concurrency', '8'], {
      cwd: dir,
      env: env(),
    });
    expect(rerun.code, rerun.stderr).toBe(0);
    const skipped = rerun.stdout.match(/^skipped /gm)?.length ?? 0;
    const uploaded = rerun.stdout.match(/^created /gm)?.length ?? 0;
    expect(skipped).toBe(sessionsBefore);
    expect(uploaded).toBe(30 - sessionsBefore);
    expect(created()).toBe(30);
    expect(readFileSync(ledgerPath, 'utf8').endsWith('\n')).toBe(true);
  });
});
